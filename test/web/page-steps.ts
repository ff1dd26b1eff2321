// What the browser stories do on every page: wait for its heading, and sign in as an
// invited user by the invitation link.
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { ADMIN_TOKEN } from '../support/service.ts';
import { PASSWORD } from '../support/users.ts';

/** Waits until the page's one h1 names it. */
export async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/**
 * The field's value once it holds `expected`, or what it holds after `timeout` ms: for a
 * form filled in after the page shows (a draft given back once the signed-in user is known).
 */
export async function settledValue(field: Locator, expected: string, timeout = 10_000): Promise<string> {
  const deadline = Date.now() + timeout;
  let value = await field.inputValue();
  while (value !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await field.inputValue();
  }
  return value;
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

/** Signs in to the operator console with the admin token and lands on its Accounts page. */
export async function operatorSignIn(page: Page, token: string): Promise<void> {
  await page.goto('/app/operator');
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading(page, 'Accounts');
}

/** The operator invites a person to the account through the admin API: the invitation link. */
export async function inviteByOperator(base: string, accountId: string, email: string, role: string): Promise<string> {
  const invited = await fetch(`${base}/admin/v1/accounts/${accountId}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email, role }),
  });
  assert.equal(invited.status, 201);
  return ((await invited.json()) as { invitation_url: string }).invitation_url;
}
