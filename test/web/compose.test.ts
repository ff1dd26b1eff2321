// Compose and WhatsApp templates (issue 24, item 5) in Debian's Chromium against a real
// herald, by keyboard only: Tab to each field, type, arrow keys in radio groups, typeahead
// in selects, Enter to send and to follow a link. An owner sends an email from a stored
// template with its variables (quote first, then the link to the message in the log), an
// SMS whose segments and quote follow the text, a WhatsApp template message, and creates
// a WhatsApp template that is kept PENDING (the account has no WhatsApp Business account).
// axe-core and screenshots at 1280 and 375 px in English and Spanish
// (test-output/screenshots/compose-*.png, whatsapp-templates-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { addWhatsappTemplate, get, openAccount, post, startService } from '../support/service.ts';
import { invitationLink } from './operator-invitation.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading, settledValue } from './page-steps.ts';

const ANA = '+5215512345678';
const BO = '+5215587654321';

// This file is type-checked without the DOM's types: the page's document is reached through globalThis.
const isFocused = (target: Locator): Promise<boolean> =>
  target.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);

/** Presses Tab until `target` has the focus (at most 60 times): it is reachable by keyboard. */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error('not reached by Tab in 60 presses');
}

async function typeInto(page: Page, target: Locator, text: string): Promise<void> {
  await tabTo(page, target);
  await page.keyboard.type(text);
}

const quote = async (page: Page): Promise<string[]> => Promise.all(['quote-cost', 'quote-have', 'quote-after'].map((id) => page.getByTestId(id).innerText()));

test('an owner composes and sends an email from a template, an SMS and a WhatsApp message, and creates a WhatsApp template, by keyboard', { skip: skipWithoutChromium, timeout: 150_000 }, async (t) => {
  buildWebIfStale();
  const service = await startService(t, { env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_PUBLIC_URL: 'http://herald.test' } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme', messagesLeft: 100, balance: 10_000, whatsappPrice: 500 });
  const stored = await post(service, '/v1/email/templates', account.apiKey, {
    name: 'Order ready', subject: 'Your order {{order}}', html: '<p>Hi {{name}}, order {{order}} is ready.</p>', text: null,
  });
  assert.equal(stored.statusCode, 201, stored.body);
  await addWhatsappTemplate(service, account.id, { name: 'otp_code', language: 'en', body: 'Hi {{1}}, your code is {{2}}' });
  const link = await invitationLink(base, account.id, 'owner@acme.test', 'owner');
  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const page = await (await openContext(browser, base, problems)).newPage();

  await step('the owner signs in and opens Compose from the navigation', 60_000, async () => {
    await acceptInvitation(page, link);
    const nav = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Compose', exact: true });
    await tabTo(page, nav);
    await page.keyboard.press('Enter');
    await heading(page, 'Compose');
  });

  const msgid = await step('an email from a stored template asks for its variables and shows its quote before it is sent', 30_000, async () => {
    await typeInto(page, page.getByLabel('From name'), 'Acme Shop');
    await typeInto(page, page.getByLabel('From address'), 'orders@example.com');
    await typeInto(page, page.getByLabel('To', { exact: true }), 'ana@example.org');
    await tabTo(page, page.getByRole('radio', { name: 'Write the message' }));
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByRole('radio', { name: 'Use a stored template' }).isChecked(), true);
    await tabTo(page, page.getByLabel('Template', { exact: true }));
    await page.keyboard.type('Order');
    await typeInto(page, page.getByLabel('name', { exact: true }), 'Ana');
    await typeInto(page, page.getByLabel('order', { exact: true }), '1042');
    assert.equal(await page.getByLabel('Subject').inputValue(), 'Your order {{order}}');
    assert.deepStrictEqual(await quote(page), ['1 message', '100', '99']);
    await checkPage(page, 'compose-email');
    await tabTo(page, page.getByRole('button', { name: 'Send email' }));
    await page.keyboard.press('Enter');
    const sent = page.getByRole('status').filter({ hasText: 'Sent' });
    await sent.waitFor();
    assert.equal(await isFocused(sent), true);
    assert.equal(await sent.locator('p').innerText(), 'Email queued for delivery — 1 recipient.');
    const href = await page.getByRole('link', { name: 'Open the message to ana@example.org in the log' }).getAttribute('href');
    return (href ?? '').replace('/app/messages/', '');
  });

  await step('the link after sending leads to the message, sent with the template filled in', 30_000, async () => {
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await heading(page, 'Message');
    assert.equal(new URL(page.url()).pathname, `/app/messages/${msgid}`);
    const message = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
    assert.deepStrictEqual([message.recipient, message.channel], ['ana@example.org', 'email']);
    const send = await service.store.db.selectFrom('sends').innerJoin('messages', 'messages.send_id', 'sends.id').select('sends.payload').where('messages.id', '=', msgid).executeTakeFirstOrThrow();
    const payload = JSON.parse(send.payload) as { from: unknown; subject: string; html: string };
    assert.deepStrictEqual([payload.from, payload.subject, payload.html], [{ email: 'orders@example.com', name: 'Acme Shop' }, 'Your order 1042', '<p>Hi Ana, order 1042 is ready.</p>']);
  });

  await step('an SMS refused for its missing number drops the refusal once numbers are typed, counts its characters and 160-character segments as typed, and quotes segments times numbers', 30_000, async () => {
    await page.goto('/app/compose');
    await heading(page, 'Compose');
    await tabTo(page, page.getByRole('radio', { name: 'Email' }));
    await page.keyboard.press('ArrowRight');
    await page.getByLabel('Message').waitFor();
    // Sent with no number: herald's own words, as herald wrote them.
    await tabTo(page, page.getByRole('button', { name: 'Send SMS' }));
    await page.keyboard.press('Enter');
    assert.equal(await page.getByRole('alert').innerText(), 'Mobile numbers missing or empty!');
    await typeInto(page, page.getByLabel('To', { exact: true }), `${ANA}, ${BO}`);
    // The refusal answered the message as it was sent; once the numbers are typed it is gone.
    await page.getByRole('alert').waitFor({ state: 'detached', timeout: 5000 });
    await typeInto(page, page.getByLabel('Message'), 'x'.repeat(160));
    assert.equal(await page.getByTestId('sms-count').innerText(), '160 characters · 1 segment of 160 characters');
    await page.keyboard.type('yz');
    assert.equal(await page.getByTestId('sms-count').innerText(), '162 characters · 2 segments of 160 characters');
    assert.equal(await page.locator('.quote-detail').innerText(), 'To 2 numbers: 2 segments each.');
    assert.deepStrictEqual(await quote(page), ['4 messages', '99', '95']);
    await checkPage(page, 'compose-sms');
    await tabTo(page, page.getByRole('button', { name: 'Send SMS' }));
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Sent' }).waitFor();
    assert.deepStrictEqual(await page.getByRole('status').getByRole('link').allInnerTexts(), [`Open the message to ${ANA} in the log`, `Open the message to ${BO} in the log`]);
    assert.equal((await get(service, '/v1/account', account.apiKey)).json().messages_left, 95);
  });

  await step('a WhatsApp template message fills the template\'s parameters and quotes its price against the balance', 30_000, async () => {
    await tabTo(page, page.getByRole('radio', { name: 'SMS' }));
    await page.keyboard.press('ArrowRight');
    await tabTo(page, page.getByLabel('Template', { exact: true }));
    await page.keyboard.type('otp');
    await typeInto(page, page.getByLabel('To', { exact: true }), ANA.slice(1));
    await typeInto(page, page.getByLabel('Parameter 1'), 'Ana');
    await typeInto(page, page.getByLabel('Parameter 2'), '4711');
    assert.equal(await page.getByLabel('Preview').innerText(), 'Hi Ana, your code is 4711');
    assert.deepStrictEqual(await quote(page), ['0.05', '1.00', '0.95']);
    await checkPage(page, 'compose-whatsapp');
    await tabTo(page, page.getByRole('button', { name: 'Send WhatsApp' }));
    await page.keyboard.press('Enter');
    const sent = page.getByRole('status').filter({ hasText: 'Sent' });
    await sent.waitFor();
    assert.match(await sent.locator('p').innerText(), /Balance now 0\.95\.$/);
  });

  await step('a new WhatsApp template is submitted by keyboard and listed as PENDING, kept in herald', 30_000, async () => {
    await tabTo(page, page.getByRole('form', { name: 'WhatsApp' }).getByRole('link', { name: 'WhatsApp templates' }));
    await page.keyboard.press('Enter');
    await heading(page, 'WhatsApp templates');
    await typeInto(page, page.getByLabel('Name', { exact: true }), 'order_ready');
    await tabTo(page, page.getByLabel('Category'));
    await page.keyboard.type('Marketing');
    await typeInto(page, page.getByLabel('Body'), 'Hi {{1}}, your order {{2}} is ready.');
    await tabTo(page, page.getByRole('button', { name: 'Submit for approval' }));
    await page.keyboard.press('Enter');
    const done = page.getByRole('status').filter({ hasText: 'order_ready' });
    await done.waitFor();
    assert.equal(await done.innerText(), 'order_ready is saved as PENDING. It stays in herald: the account has no WhatsApp Business account configured, so the operator approves it.');
    assert.equal(await isFocused(done), true);
    const row = page.getByRole('row', { name: /order_ready/ });
    await row.waitFor();
    assert.deepStrictEqual(await row.locator('th, td').allInnerTexts(), ['order_ready', 'en_US', 'Marketing', 'PENDING', 'Kept in herald', 'Hi {{1}}, your order {{2}} is ready.']);
    await checkPage(page, 'whatsapp-templates');
  });

  await step('an email being written is kept through a reload, and leaving it unsent asks first', 30_000, async () => {
    await page.goto('/app/compose');
    await heading(page, 'Compose');
    await typeInto(page, page.getByLabel('Subject', { exact: true }), 'Draft kept');
    // Reloading with unsent work asks too (beforeunload): the test answers leave.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.reload();
    await heading(page, 'Compose');
    // The draft is given back once the session says whose it is, just after the page shows.
    assert.equal(await settledValue(page.getByLabel('Subject', { exact: true }), 'Draft kept'), 'Draft kept');
    const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => { resolve(dialog.message()); void dialog.dismiss(); }));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Messages', exact: true }).click();
    assert.equal(await asked, 'Leave this page? The message you are writing has not been sent.');
    assert.equal(new URL(page.url()).pathname, '/app/compose');
    assert.equal(await page.getByLabel('Subject', { exact: true }).inputValue(), 'Draft kept');
  });

  await step('in Spanish the pages speak Spanish and stay accessible', 60_000, async () => {
    await page.evaluate("localStorage.setItem('herald.language', 'es')");
    await page.goto('/app/compose?channel=sms');
    await heading(page, 'Redactar');
    await typeInto(page, page.getByLabel('Mensaje'), 'Hola');
    assert.equal(await page.getByTestId('sms-count').innerText(), '4 caracteres · 1 segmento de 160 caracteres');
    await checkPage(page, 'compose-es');
    await page.goto('/app/whatsapp-templates');
    await heading(page, 'Plantillas de WhatsApp');
    await page.getByRole('row', { name: /order_ready/ }).getByText('Guardada en herald').waitFor();
    await checkPage(page, 'whatsapp-templates-es');
  });

  assert.deepStrictEqual(problems.errors, []);
});
