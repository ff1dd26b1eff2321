// Scheduled sends in the web application (issue 25, item 2), in Debian's Chromium against a
// real herald: an owner finds a scheduled SMS under status "scheduled" with its time, reads
// it on its page, cancels it after a confirmation (refunded), and reads it in Spanish.
// axe-core and screenshots at 1280 and 375 px (test-output/screenshots/scheduled-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { campaignWorld } from '../support/campaigns.ts';
import { post, readAccount, smsBody } from '../support/service.ts';
import { invite } from '../support/users.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading } from './page-steps.ts';

test('an owner sees a scheduled SMS with its time, cancels it after a confirmation, and reads it in Spanish', { skip: skipWithoutChromium, timeout: 120_000 }, async (t) => {
  buildWebIfStale();
  const w = await campaignWorld(t, { start: Date.now(), messagesLeft: 10 });
  const { service, account } = w;
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const sendAt = new Date(w.clock.now + 3600_000).toISOString();
  const sent = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+34600111222'], send_at: sendAt }));
  assert.equal(sent.statusCode, 200, sent.body);
  const msgid = sent.json().messages[0].msgid as string;

  const link = `${base}/app/invitation#${await invite(service, account.id, 'owner@acme.test', 'owner')}`;
  const problems: PageProblems = { errors: [] };
  const step = steps(t);
  const page = await (await openContext(await launchChromium(t), base, problems)).newPage();
  const fact = (name: string) => page.locator('dl.facts > div', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) }).locator('dd');

  await step('the log filtered by status scheduled shows the message with its badge and time', 60_000, async () => {
    await acceptInvitation(page, link);
    await page.goto('/app/messages');
    await heading(page, 'Messages');
    await page.getByLabel('Status').selectOption('scheduled');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/[?&]status=scheduled/);
    const row = page.locator('main table tbody tr', { hasText: '+34600111222' });
    await row.waitFor();
    assert.equal(await row.locator('[data-status]').getAttribute('data-status'), 'scheduled');
    assert.equal(await row.locator('td', { has: page.locator('[data-status]') }).locator('time').getAttribute('datetime'), sendAt);
    await checkPage(page, 'scheduled-messages');
  });

  await step('the message page says when it leaves and offers to cancel it', 30_000, async () => {
    await page.getByRole('link', { name: '+34600111222' }).click();
    await heading(page, 'Message');
    assert.equal(await fact('Status').innerText(), 'scheduled');
    assert.equal(await fact('Sends at').locator('time').getAttribute('datetime'), sendAt);
    await page.getByRole('button', { name: 'Cancel the send' }).waitFor();
    await checkPage(page, 'scheduled-message');
  });

  await step('cancelling asks first; confirmed, the message is cancelled and its cost refunded', 30_000, async () => {
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this scheduled message?' });
    await dialog.waitFor();
    await checkPage(page, 'scheduled-cancel-dialog');
    await dialog.getByRole('button', { name: 'Yes, cancel it' }).click();
    await page.locator('dl.facts [data-status="cancelled"]').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Cancel the send' }).count(), 0);
    assert.equal((await readAccount(service, account.id)).messagesLeft, 10);
  });

  await step('in Spanish the cancelled message says so in Spanish', 30_000, async () => {
    await page.evaluate("localStorage.setItem('herald.language', 'es')");
    await page.goto(`/app/messages/${msgid}`);
    await heading(page, 'Mensaje');
    assert.equal(await fact('Estado').innerText(), 'cancelado');
    await page.locator('dt', { hasText: /^Sale el$/ }).waitFor();
    await checkPage(page, 'scheduled-message-es');
    await page.evaluate("localStorage.setItem('herald.language', 'en')");
  });

  assert.deepStrictEqual(problems.errors, []);
});
