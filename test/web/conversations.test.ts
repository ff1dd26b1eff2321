// The Conversations page (issue 23, item 7) in Debian's Chromium against a real herald: an
// owner finds the people who wrote back, reads one thread (what herald sent and what came
// back, an email's HTML never rendered, the person's SMS opt-out), and answers inside the
// WhatsApp window. axe-core
// and screenshots at 1280 and 375 px (test-output/screenshots/conversations-*.png). What
// people send arrives through receiveInbound, the door every channel hands its messages to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Channel } from '../../src/domain/account.ts';
import { receiveInbound } from '../../src/app/receive-inbound.ts';
import { touchWhatsappSession } from '../../src/store/whatsapp-sessions.ts';
import type { Service } from '../../src/service.ts';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { get, openAccount, post, startService, type TestAccount } from '../support/service.ts';
import { invitationLink } from './operator-invitation.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading } from './page-steps.ts';

const ANA = '+5215512345678';
const MINUTE = 60_000;

async function receive(service: Service, account: TestAccount, message: { channel: Channel; from: string; to: string; text: string | null; at: number; content?: Record<string, string> }): Promise<void> {
  const { channel, from, to, text, at, content } = message;
  const recorded = await receiveInbound(service.deps, { channel, from, to, text, receivedAt: at, accountId: account.id, ...(content === undefined ? {} : { content }) });
  assert.equal(recorded.stored, true);
}

test('an owner reads the people who wrote back, sees who opted out, and answers one on WhatsApp inside the window', { skip: skipWithoutChromium, timeout: 120_000 }, async (t) => {
  buildWebIfStale();
  // herald's clock half an hour behind while the first SMS is sent, so that it opens the thread.
  let shift = -30 * MINUTE;
  const service = await startService(t, { clock: () => Date.now() + shift, env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_PUBLIC_URL: 'http://herald.test' } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme', balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: 'EAAG-token' });
  const now = Date.now();
  const sms = await post(service, '/v1/sms/send', account.apiKey, { mobile_numbers: [ANA], message: 'Your table for 2 is booked for 8 pm tonight.' });
  assert.equal(sms.statusCode, 200, sms.body);
  shift = 0;
  // Ana told the restaurant by phone to stop texting her: an opt-out the account records.
  const optOut = await post(service, '/v1/consent', account.apiKey, { channel: 'sms', address: ANA, change: 'opted_out' });
  assert.equal(optOut.statusCode, 201, optOut.body);
  await receive(service, account, { channel: 'sms', from: ANA, to: '+15550001111', text: 'Thanks! Could we make it 9 pm?', at: now - 10 * MINUTE });
  await receive(service, account, { channel: 'whatsapp', from: ANA, to: '106540352242922', text: 'Also, is there a vegetarian menu?', at: now - 5 * MINUTE, content: { type: 'text' } });
  await touchWhatsappSession(service.deps.db, { accountId: account.id, destination: ANA.slice(1), at: now - 5 * MINUTE });
  await receive(service, account, {
    channel: 'email', from: 'bo@example.org', to: 'help@acme.test', text: 'Where is <b>my order</b>?', at: now - 20 * MINUTE,
    content: { subject: 'Order 12', html: '<p>Where is <b>my order</b>?</p><img src="https://tracker.example/pixel.gif">' },
  });
  const link = await invitationLink(base, account.id, 'owner@acme.test', 'owner');
  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const page = await (await openContext(browser, base, problems)).newPage();

  await step('the list shows each person who wrote, newest activity first', 60_000, async () => {
    await acceptInvitation(page, link);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Conversations', exact: true }).click();
    await heading(page, 'Conversations');
    const people = page.getByRole('navigation', { name: 'Conversations' }).locator('.conversation-person');
    await people.first().waitFor();
    assert.deepStrictEqual(await people.allTextContents(), [ANA, 'bo@example.org']);
  });

  await step('an email is shown as text, never as HTML', 30_000, async () => {
    await page.getByRole('link', { name: /bo@example\.org/ }).click();
    await page.locator('.bubble-text', { hasText: 'Where is <b>my order</b>?' }).waitFor();
    assert.equal(await page.locator('.bubbles b, .bubbles img, .bubbles iframe').count(), 0);
    assert.equal(await page.getByLabel('From').inputValue(), 'help@acme.test');
    assert.equal(await page.getByLabel('Subject').inputValue(), 'Re: Order 12');
  });

  await step('a thread reads in time order across channels, shows the SMS opt-out, and offers WhatsApp while its window is open', 60_000, async () => {
    await page.getByRole('link', { name: new RegExp(ANA.replace('+', '\\+')) }).click();
    await page.getByRole('heading', { level: 2, name: ANA }).waitFor();
    const bubbles = page.getByRole('list', { name: `Messages with ${ANA}, oldest first` }).locator('.bubble-text');
    await bubbles.first().waitFor();
    assert.deepStrictEqual(await bubbles.allTextContents(), ['Your table for 2 is booked for 8 pm tonight.', 'Thanks! Could we make it 9 pm?', 'Also, is there a vegetarian menu?']);
    assert.equal(await page.getByLabel('Reply by').inputValue(), 'whatsapp');
    await page.getByRole('list', { name: 'Consent' }).getByText('Opted out of SMS', { exact: true }).waitFor();
    await checkPage(page, 'conversations');
  });

  await step('a reply goes out as a WhatsApp session message and joins the thread', 30_000, async () => {
    await page.getByLabel('Message', { exact: true }).fill('Yes: 9 pm, and the vegetarian menu is on the back.');
    await page.getByRole('button', { name: 'Send WhatsApp' }).click();
    await page.getByRole('status').getByText('Sent.').waitFor();
    await page.locator('.bubble.out .bubble-text', { hasText: 'Yes: 9 pm, and the vegetarian menu is on the back.' }).waitFor();
    const sent = (await get(service, '/v1/messages?channel=whatsapp', account.apiKey)).json();
    assert.deepStrictEqual(sent.data.map((m: { recipient: string }) => m.recipient), [ANA.slice(1)]);
  });

  assert.deepStrictEqual(problems.errors, []);
});
