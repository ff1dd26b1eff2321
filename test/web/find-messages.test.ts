// Messages you can find (issue 24, item 3) in Debian's Chromium against a real herald: an
// owner filters the log and the filter lives in the address (Back and a reload show the
// same rows under the same form), searches by subject, recipient prefix and metadata,
// reads what a message was (subject, sender, campaign, tag, metadata), sees the log in
// Spanish, and reads the requests a key made. axe-core and screenshots at 1280 and 375 px
// (test-output/screenshots/find-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { action, campaignBody, campaignWorld, createCampaign, makeContact, makeList, runCampaigns } from '../support/campaigns.ts';
import { emailBody, issueKey, post, smsBody } from '../support/service.ts';
import { invite } from '../support/users.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading } from './page-steps.ts';

/** The recipients of the log's rows, once they are `expected` (the table is redrawn as answers come). */
async function rowsBecome(page: Page, expected: readonly string[]): Promise<void> {
  const cells = page.locator('main table tbody tr > th');
  const deadline = Date.now() + 10_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = (await cells.allTextContents()).map((text) => text.trim());
    if (JSON.stringify(seen) === JSON.stringify(expected) && await page.locator('.loading-table').count() === 0) return;
    await page.waitForTimeout(100);
  }
  assert.deepStrictEqual(seen, expected);
}

test('an owner finds messages by what they were, keeps the filter through Back and a reload, and reads a key\'s requests', { skip: skipWithoutChromium, timeout: 120_000 }, async (t) => {
  buildWebIfStale();
  const w = await campaignWorld(t, { start: Date.now() });
  const { service, account } = w;
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const key = await issueKey(service, account.id);
  const sent = async (body: Record<string, unknown>): Promise<void> => {
    const res = await post(service, '/v1/email', key.apiKey, emailBody(body));
    assert.equal(res.statusCode, 200, res.body);
    w.clock.now += 1000;
  };
  // The campaign's message first (oldest), then three sends with the key, a second apart.
  const list = await makeList(w, 'Customers');
  await makeContact(w, 'cleo@example.org', { name: 'Cleo', attributes: { city: 'Lima' }, lists: [list] });
  const campaign = await createCampaign(w, campaignBody([list]));
  assert.equal((await action(w, campaign, 'send')).statusCode, 200);
  await runCampaigns(w);
  await sent({ to: [{ email: 'ana.lopez@example.org' }], subject: 'Your invoice #1042', metadata: { order: '1042' } });
  await sent({ to: [{ email: 'anabel@example.net' }], subject: 'Welcome aboard', campaign: 'onboarding', metadata: { plan: 'pro' } });
  const sms = await post(service, '/v1/sms/send', key.apiKey, smsBody({ mobile_numbers: ['+34600111222'] }));
  assert.equal(sms.statusCode, 200, sms.body);
  const everyone = ['+34600111222', 'anabel@example.net', 'ana.lopez@example.org', 'cleo@example.org'];

  const link = `${base}/app/invitation#${await invite(service, account.id, 'owner@acme.test', 'owner')}`;
  const problems: PageProblems = { errors: [] };
  const step = steps(t);
  const page = await (await openContext(await launchChromium(t), base, problems)).newPage();

  await step('the log shows every message with its subject, sender and campaign, and how many there are', 60_000, async () => {
    await acceptInvitation(page, link);
    await page.goto('/app/messages');
    await heading(page, 'Messages');
    await rowsBecome(page, everyone);
    await page.getByRole('status').getByText('4 messages', { exact: true }).waitFor();
    const invoice = page.locator('main table tbody tr', { hasText: 'ana.lopez@example.org' });
    assert.equal((await invoice.locator('td').first().innerText()).replace(/\s+/g, ' '), 'Your invoice #1042 from news@example.com');
    const cleo = page.locator('main table tbody tr', { hasText: 'cleo@example.org' });
    assert.equal(await cleo.getByRole('link', { name: 'July news' }).getAttribute('href'), `/app/campaigns/${campaign}`);
  });

  await step('a channel filter goes into the address; Back shows every row under an empty form, Forward and a reload the filtered rows under it', 30_000, async () => {
    await page.getByLabel('Channel').selectOption('sms');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/[?&]channel=sms/);
    await rowsBecome(page, ['+34600111222']);
    await page.goBack();
    await rowsBecome(page, everyone);
    assert.equal(await page.getByLabel('Channel').inputValue(), '');
    await page.goForward();
    await rowsBecome(page, ['+34600111222']);
    assert.equal(await page.getByLabel('Channel').inputValue(), 'sms');
    await page.reload();
    await rowsBecome(page, ['+34600111222']);
    assert.equal(await page.getByLabel('Channel').inputValue(), 'sms');
  });

  await step('a subject, a recipient prefix and a metadata value each find their messages', 30_000, async () => {
    await page.goto('/app/messages');
    await rowsBecome(page, everyone);
    await page.getByLabel('Subject contains').fill('INVOICE');
    await page.getByRole('button', { name: 'Apply' }).click();
    await rowsBecome(page, ['ana.lopez@example.org']);
    await page.getByRole('status').getByText('1 message', { exact: true }).waitFor();
    await page.getByLabel('Subject contains').fill('');
    await page.getByLabel('Recipient starts with').fill('ana');
    await page.getByRole('button', { name: 'Apply' }).click();
    await rowsBecome(page, ['anabel@example.net', 'ana.lopez@example.org']);
    await page.getByLabel('Recipient starts with').fill('');
    await page.getByLabel('Metadata key').fill('order');
    await page.getByLabel('Metadata value').fill('1042');
    await page.getByRole('button', { name: 'Apply' }).click();
    await rowsBecome(page, ['ana.lopez@example.org']);
    assert.equal(new URL(page.url()).search, '?metadata_key=order&metadata_value=1042');
    await checkPage(page, 'find-messages');
  });

  await step('a message page says its subject, sender, tag and metadata; a campaign\'s names its campaign', 30_000, async () => {
    await page.goto('/app/messages?recipient_prefix=anabel');
    await page.getByRole('link', { name: 'anabel@example.net' }).click();
    await heading(page, 'Message');
    const fact = (name: string) => page.locator('dl.facts > div', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) }).locator('dd');
    assert.deepStrictEqual(
      [await fact('Subject').innerText(), await fact('Sender').innerText(), await fact('Tag').innerText(), await fact('plan').innerText()],
      ['Welcome aboard', 'news@example.com', 'onboarding', 'pro'],
    );
    await checkPage(page, 'find-message');
    await page.goto('/app/messages?recipient_prefix=cleo');
    await page.getByRole('link', { name: 'cleo@example.org' }).click();
    await heading(page, 'Message');
    assert.deepStrictEqual([await fact('Subject').innerText(), await fact('Campaign').innerText()], ['News for Cleo', 'July news']);
  });

  await step('in Spanish the log counts and filters in Spanish', 30_000, async () => {
    await page.evaluate("localStorage.setItem('herald.language', 'es')");
    await page.goto('/app/messages?subject=invoice');
    await heading(page, 'Mensajes');
    await rowsBecome(page, ['ana.lopez@example.org']);
    await page.getByRole('status').getByText('1 mensaje', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('El asunto contiene').inputValue(), 'invoice');
    await checkPage(page, 'find-messages-es');
    await page.evaluate("localStorage.setItem('herald.language', 'en')");
  });

  await step('the key\'s request log lists the requests made with it, newest first', 30_000, async () => {
    await page.goto(`/app/api-keys/${key.id}/requests`);
    await heading(page, /^API requests: /);
    await page.getByRole('status').getByText('3 requests', { exact: true }).waitFor();
    const rows = (await page.locator('main table tbody tr > th').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
    assert.deepStrictEqual(rows, ['POST /v1/sms/send', 'POST /v1/email', 'POST /v1/email']);
    await checkPage(page, 'find-api-requests');
  });

  assert.deepStrictEqual(problems.errors, []);
});
