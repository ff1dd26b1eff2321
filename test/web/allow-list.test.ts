// The IP allow-list in the browser (issue 19, item 6): an owner who saves a list without
// their own address is refused and offered the two ways out; the operator's console edits
// the list and whom it binds, and so shuts the account out and lets it in again. Debian's
// Chromium against a real herald (the browser reaches it from 127.0.0.1); axe on each page;
// each part a step of its own (test/web/steps.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { ADMIN_TOKEN, openAccount, startService } from '../support/service.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading } from './page-steps.ts';


test('an owner cannot save themselves out of the application, and the operator\'s console edits the list and whom it binds', { skip: skipWithoutChromium, timeout: 180_000 }, async (t) => {
  buildWebIfStale();
  // One run, on the embedded store: the API beneath the pages has its suites on both stores.
  const service = await startService(t, { env: { HERALD_DATABASE_URL: 'sqlite::memory:' } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme' });
  const invited = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', role: 'owner' }),
  });
  assert.equal(invited.status, 201);
  const link = ((await invited.json()) as { invitation_url: string }).invitation_url;
  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);

  const owner = await (await openContext(browser, base, problems)).newPage();
  const operator = await (await openContext(browser, base, problems)).newPage();

  await step('the owner’s list without 127.0.0.1 is refused, and saved once it binds API keys only', 90_000, async () => {
    await acceptInvitation(owner, link);
    await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys', exact: true }).click();
    await owner.getByText('You are reaching herald from 127.0.0.1.').waitFor();
    await owner.getByRole('button', { name: 'Add an entry' }).click();
    await owner.getByRole('textbox', { name: 'Entry 1' }).fill('198.51.100.0/24');
    await owner.getByText('This list does not include your address (127.0.0.1)').waitFor();
    await owner.getByRole('button', { name: 'Save the list' }).click();
    await owner.getByRole('alert').getByText('The IP allow-list would lock you out').waitFor();
    await checkPage(owner, 'allow-list-refused');
    await owner.getByRole('button', { name: 'Save for API keys only' }).click();
    await owner.getByText('Saved.').waitFor();
    assert.equal(await owner.getByLabel('The list binds').inputValue(), 'keys');
    // Read with the key from inside the list: keys stay bound to it.
    const saved = (await service.http.inject({ method: 'GET', url: '/v1/account', remoteAddress: '198.51.100.7', headers: { authorization: `Bearer ${account.apiKey}` } })).json();
    assert.deepStrictEqual([saved.ip_allow_list, saved.allow_list_applies_to], [['198.51.100.0/24'], 'keys']);
  });

  await step('the operator binds sessions too, and the owner is shut out', 90_000, async () => {
    await operator.goto('/app/operator');
    await operator.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await heading(operator, 'Accounts');
    await operator.goto(`/app/operator/accounts/${account.id}`);
    await heading(operator, 'Acme');
    assert.equal(await operator.getByLabel('Addresses and ranges, one a line').inputValue(), '198.51.100.0/24');
    await operator.getByLabel('The list binds').selectOption('all');
    await operator.getByRole('button', { name: 'Save the allow-list' }).click();
    await operator.getByText('Allow-list saved.').waitFor();
    await checkPage(operator, 'operator-allow-list');
    await owner.reload();
    await owner.getByText('your address is not in this account\'s IP allow-list', { exact: false }).first().waitFor();
    await checkPage(owner, 'allow-list-shut-out');
  });

  await step('the operator binds keys only again, and the owner is back', 90_000, async () => {
    await operator.getByLabel('The list binds').selectOption('keys');
    await operator.getByRole('button', { name: 'Save the allow-list' }).click();
    await operator.getByText('Allow-list saved.').waitFor();
    await owner.reload();
    await owner.getByText('You are reaching herald from 127.0.0.1.').waitFor();
  });

  await step('without HERALD_SUBMISSION_PORT the API keys page says SMTP submission is off and who turns it on', 30_000, async () => {
    const smtp = owner.getByRole('region', { name: 'Send by SMTP' });
    assert.equal(await smtp.locator('.notice').textContent(), 'SMTP submission is not enabled on this server; the operator sets HERALD_SUBMISSION_PORT.');
    assert.equal(await smtp.locator('dl').count(), 0);
    await checkPage(owner, 'api-keys-smtp-off');
  });

  await step('no page had a script error or a CSP violation', 5_000, async () => {
    assert.deepStrictEqual(problems.errors, []);
  });
});
