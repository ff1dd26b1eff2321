// Live pages (issue 24, item 2) in Debian's Chromium against a real herald: what happens
// to the account reaches the open pages without a reload — a message sent by API appears
// in the open Messages list, an open message's timeline moves to `delivered`, each within
// 2 s; the overview's activity feed lists the events; the shell says Live (En directo in
// Spanish); and when the stream is refused the pages refresh by polling instead. Messages
// go to simulator recipients (docs/sandbox.md), whose `delivered` follows a step after `sent`.
// axe-core and screenshots at 1280 and 375 px (test-output/screenshots/live-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { emailBody, openAccount, startService } from '../support/service.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading, inviteByOperator } from './page-steps.ts';

/** The simulator's delay between `sent` and `delivered`: long enough that the message page has stopped its own polling at `sent`. */
const SIMULATOR_STEP_MS = 3000;
const LIVE_WITHIN_MS = 2000;

test('open pages follow the account as it happens: a new message in the list, its timeline to delivered, the activity feed, in English and Spanish, and polling when the stream is refused', { skip: skipWithoutChromium, timeout: 90_000 }, async (t) => {
  buildWebIfStale();
  const service = await startService(t, { worker: true, env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_SIMULATOR_STEP_MS: String(SIMULATOR_STEP_MS) } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme' });
  const link = await inviteByOperator(base, account.id, 'owner@acme.test', 'owner');
  /** Sends an email by API, as an application would; its msgid. */
  const sendByApi = async (to: string): Promise<string> => {
    const res = await fetch(`${base}/v1/email`, {
      method: 'POST', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(emailBody({ to: [{ email: to }] })),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { to: { msgid: string }[] }).to[0]?.msgid ?? '';
  };
  const statusOf = async (msgid: string): Promise<string> => {
    const res = await fetch(`${base}/v1/messages/${msgid}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    return ((await res.json()) as { status: string }).status;
  };
  const liveStatus = (page: Page) => page.locator('.live-status');
  const nav = async (page: Page, name: string): Promise<void> => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
    await heading(page, name);
  };

  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const context = await openContext(browser, base, problems);
  const page = await context.newPage();

  await step('a signed-in owner\'s shell says the pages are live', 30_000, async () => {
    await acceptInvitation(page, link);
    await liveStatus(page).filter({ hasText: 'Live' }).waitFor();
    assert.equal(await liveStatus(page).getAttribute('role'), 'status');
    assert.equal(await liveStatus(page).textContent(), 'Live');
  });

  const msgid = await step('an open Messages list shows a message sent by API within 2 s, without a reload', 20_000, async () => {
    await nav(page, 'Messages');
    await page.getByText('No messages yet', { exact: false }).or(page.getByRole('table')).first().waitFor();
    await page.evaluate('window.heraldNotReloaded = true');
    const sentAt = Date.now();
    const id = await sendByApi('delivered+list@simulator.herald.test');
    await page.getByRole('link', { name: 'delivered+list@simulator.herald.test' }).waitFor({ timeout: LIVE_WITHIN_MS });
    assert.ok(Date.now() - sentAt <= LIVE_WITHIN_MS, `shown after ${Date.now() - sentAt} ms`);
    assert.equal(await page.evaluate('window.heraldNotReloaded === true'), true);
    return id;
  });

  await step('an open message\'s timeline moves to delivered within 2 s of the delivery, without a reload', 30_000, async () => {
    await page.getByRole('link', { name: 'delivered+list@simulator.herald.test' }).click();
    await heading(page, 'Message');
    await page.evaluate('window.heraldNotReloaded = true');
    const delivered = page.getByRole('listitem').filter({ hasText: /^delivered/ }).first();
    const shown = delivered.waitFor({ timeout: SIMULATOR_STEP_MS + 5000 }).then(() => Date.now());
    let deliveredAt: number | undefined;
    while (deliveredAt === undefined) {
      if (await statusOf(msgid) === 'delivered') deliveredAt = Date.now();
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const shownAt = await shown;
    assert.ok(shownAt - deliveredAt <= LIVE_WITHIN_MS, `delivered shown ${shownAt - deliveredAt} ms after herald recorded it`);
    assert.equal(await page.evaluate('window.heraldNotReloaded === true'), true);
    await checkPage(page, 'live-message');
  });

  await step('the overview\'s activity feed lists a new message and its way to delivered as it happens', 30_000, async () => {
    await nav(page, 'Overview');
    const feed = page.getByRole('list', { name: 'Recent events, newest first' });
    const id = await sendByApi('delivered+feed@simulator.herald.test');
    const lines = feed.getByRole('listitem').filter({ has: page.locator(`a[href="/app/messages/${id}"]`) });
    await lines.filter({ hasText: /Email message accepted$/ }).waitFor({ timeout: LIVE_WITHIN_MS });
    await lines.filter({ hasText: /Email message now\s*delivered$/ }).waitFor({ timeout: SIMULATOR_STEP_MS + 5000 });
    // Newest first: delivered above sent above accepted.
    const texts = (await lines.allTextContents()).map((text) => text.replace(/^.*?Email message /, ''));
    assert.deepStrictEqual(texts, ['now delivered', 'now sent', 'accepted']);
    await checkPage(page, 'live-overview');
  });

  await step('in Spanish the shell says En directo and the overview and usage pages speak Spanish', 30_000, async () => {
    const state = await context.storageState();
    const spanish = { ...state, origins: state.origins.map((origin) => ({ ...origin, localStorage: [...origin.localStorage, { name: 'herald.language', value: 'es' }] })) };
    if (spanish.origins.length === 0) spanish.origins.push({ origin: base, localStorage: [{ name: 'herald.language', value: 'es' }] });
    const es = await (await openContext(browser, base, problems, spanish)).newPage();
    await es.goto('/app/');
    await heading(es, 'Resumen');
    await liveStatus(es).filter({ hasText: 'En directo' }).waitFor();
    await es.getByText('No ha ocurrido nada desde que se abrió esta página', { exact: true }).waitFor();
    await checkPage(es, 'live-overview-es');
    await es.goto('/app/usage');
    await heading(es, 'Uso');
    // The table shows once the ledger is read; the heading shows before.
    await es.getByRole('columnheader').first().waitFor();
    assert.deepStrictEqual(await es.getByRole('columnheader').allTextContents(), ['Cuándo', 'Tipo', 'Mensajes', 'Saldo', 'Motivo', 'Envío']);
    await checkPage(es, 'live-usage-es');
    await es.close();
  });

  await step('when the stream is refused the shell says so and the list still updates, by polling every 5 s', 30_000, async () => {
    const polling = await (await openContext(browser, base, problems, await context.storageState())).newPage();
    await polling.route('**/v1/events/stream', (route) => route.fulfill({
      status: 429, contentType: 'application/json', body: JSON.stringify({ message: 'Too many live update streams open, close one or try again later' }),
    }));
    await polling.goto('/app/messages');
    await heading(polling, 'Messages');
    await liveStatus(polling).filter({ hasText: 'Updating every 5 s' }).waitFor();
    const sentAt = Date.now();
    await sendByApi('delivered+polled@simulator.herald.test');
    await polling.getByRole('link', { name: 'delivered+polled@simulator.herald.test' }).waitFor({ timeout: 8000 });
    assert.ok(Date.now() - sentAt <= 7000, `shown after ${Date.now() - sentAt} ms`);
    await polling.close();
  });

  assert.deepStrictEqual(problems.errors, []);
});
