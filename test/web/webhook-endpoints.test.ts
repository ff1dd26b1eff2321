// The Webhooks page manages several endpoints (issue 25), in Debian's Chromium against a
// real herald: an owner adds two endpoints through the page, each for receivers on
// loopback that verify with the `standardwebhooks` package; on an endpoint's page sends a
// test event of a chosen type, sees it succeed in that endpoint's log, and disables the
// endpoint. Every page is checked with axe-core at 1280 and 375 px (checkPage).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWebhookReceiver } from '../peers/webhook-receiver.ts';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { ADMIN_TOKEN, openAccount, post, startService } from '../support/service.ts';
import { PASSWORD } from '../support/users.ts';
import { heading } from './page-steps.ts';
import { steps } from './steps.ts';

test('an owner adds endpoints on the Webhooks page, sends one a test event of a chosen type and disables it', { skip: skipWithoutChromium, timeout: 240_000 }, async (t) => {
  buildWebIfStale();
  const [orders, analytics] = [await startWebhookReceiver(t), await startWebhookReceiver(t)];
  // One run, on the embedded store: the API beneath the page has its suites on both stores.
  const service = await startService(t, { worker: true, env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_SESSION_RATE_LIMIT: '1000' } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme' });
  const invited = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', role: 'owner' }),
  });
  const token = ((await invited.json()) as { invitation_url: string }).invitation_url.split('#')[1];
  assert.equal((await post(service, '/v1/auth/invitation/accept', undefined, { token, password: PASSWORD })).statusCode, 200);

  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const context = await openContext(browser, base, problems);
  assert.equal((await context.request.post(`${base}/v1/auth/sign-in`, { data: { email: 'owner@acme.test', password: PASSWORD } })).status(), 200);
  const page = await context.newPage();

  await step('two endpoints are added through the page and listed, the first one first', 60_000, async () => {
    await page.goto('/app/webhooks');
    await heading(page, 'Webhooks');
    const add = page.getByRole('form', { name: 'Add endpoint' });
    for (const [receiver, description] of [[orders, 'Orders'], [analytics, 'Analytics']] as const) {
      await add.getByLabel('Address of the new endpoint').fill(receiver.url);
      await add.getByLabel('Description').fill(description);
      await add.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByRole('link', { name: receiver.url }).waitFor();
    }
    const rows = page.getByRole('region', { name: 'All endpoints' }).getByRole('row');
    assert.equal(await rows.count(), 3, 'a header row and two endpoints');
    // The account had no URL: the first endpoint added is its first endpoint, the one of the form above.
    assert.equal(await page.getByLabel('URL', { exact: true }).inputValue(), orders.url);
    await checkPage(page, 'webhook-endpoints');
  });

  await step('a test event of type email.bounced goes to the chosen endpoint only, signed with its own secret', 60_000, async () => {
    await page.getByRole('link', { name: analytics.url }).click();
    await heading(page, 'Webhook endpoint');
    await page.getByRole('button', { name: 'Reveal' }).click();
    analytics.secrets = [(await page.getByRole('region', { name: 'Signing secret' }).locator('code').textContent()) ?? ''];
    await page.getByLabel('Event type').selectOption('email.bounced');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const row = page.getByRole('row').filter({ hasText: 'email.bounced' });
    await row.getByText('succeeded').waitFor();
    assert.deepStrictEqual(analytics.received.map((e) => [e.payload.type, e.verifiedBy]), [['email.bounced', analytics.secrets]]);
    assert.equal(orders.received.length, 0);
    await checkPage(page, 'webhook-endpoint');
  });

  await step('disabling the endpoint on its page shows it disabled, in the list too', 60_000, async () => {
    await page.getByLabel('Enabled: post events to this endpoint').uncheck();
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByText('disabled by the account').waitFor();
    await page.getByRole('link', { name: '← Webhooks' }).click();
    await heading(page, 'Webhooks');
    await page.getByRole('row').filter({ hasText: analytics.url }).getByText('inactive').waitFor();
    await page.getByRole('row').filter({ hasText: orders.url }).getByText('active', { exact: true }).waitFor();
  });
  assert.deepStrictEqual(problems.errors, []);
});
