// What the browser stories do on every page: wait for its heading, and sign in as an
// invited user by the invitation link.
import type { Page } from 'playwright-core';
import { PASSWORD } from '../support/users.ts';

/** Waits until the page's one h1 names it. */
export async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/** Follows an invitation link (its token after the #), sets PASSWORD and lands on the signed-in Overview. */
export async function acceptInvitation(page: Page, link: string): Promise<void> {
  await page.goto(`/app/invitation${new URL(link).hash}`);
  await page.getByText('You are invited to').waitFor();
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await heading(page, 'Overview');
}
