// The account web application end to end, in Debian's Chromium against a real herald
// with the built front end (issue 12's "Done when"): the operator invites an owner, who
// sets a password, makes and copies an API key, verifies a domain, sends with the key
// over plain HTTP and follows the message; a template is refused, fixed, previewed,
// saved, sent to oneself and named by its copied template_id in a send with the key; a
// webhook test event is delivered and retried; a viewer cannot make a key; another
// account's message is not found; signing out ends the session in a second browser too. Every page is checked with axe-core and photographed at 1280 and
// 375 px (test-output/screenshots/). Every wait is on something the page shows (no sleeps):
// it must pass on a loaded CI machine. Each part is a step of its own (test/web/steps.ts):
// a failure names the step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { startDnsServer } from '../peers/dns-server.ts';
import { startWebhookReceiver } from '../peers/webhook-receiver.ts';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { ADMIN_TOKEN, emailBody, startService } from '../support/service.ts';
import { steps } from './steps.ts';
import { PASSWORD } from '../support/users.ts';
import { acceptInvitation, heading } from './page-steps.ts';

async function invitationLinkIn(page: Page): Promise<string> {
  const dialog = page.getByRole('dialog', { name: /^Invitation (sent|made, not emailed)$/ });
  const link = (await dialog.locator('code').textContent()) ?? '';
  await dialog.getByRole('button', { name: 'Done' }).click();
  return link;
}

async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await heading(page, name);
}

test('the operator invites an owner, who keys, verifies, sends, templates, hooks and signs out through the web application', { skip: skipWithoutChromium, timeout: 480_000 }, async (t) => {
  buildWebIfStale();
  const dns = await startDnsServer();
  t.after(() => dns.close());
  const receiver = await startWebhookReceiver(t);
  // One run, on the embedded store (test/run-postgres.ts skips a file that names its own
  // HERALD_DATABASE_URL): the API beneath the pages has its suites on both stores.
  // SMTP submission configured without a certificate (issue 22): the API keys page shows its settings.
  const service = await startService(t, {
    worker: true,
    env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_DNS_SERVERS: dns.server, HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSION_HOST: '127.0.0.1', HERALD_SUBMISSION_PUBLIC_HOST: 'mail.acme.test' },
  });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const operator = await (await openContext(browser, base, problems)).newPage();
  const ownerContext = await openContext(browser, base, problems);
  const owner = await ownerContext.newPage();

  const ownerLink = await step('the operator opens an account and invites its first owner', 90_000, async () => {
    await operator.goto('/app/operator');
    await heading(operator, 'Operator console');
    await checkPage(operator, 'operator-sign-in');
    await operator.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await heading(operator, 'Accounts');
    await operator.getByLabel('Name', { exact: true }).fill('Acme');
    await operator.getByLabel('Messages to start with').fill('1000');
    await operator.getByRole('button', { name: 'Open account' }).click();
    await heading(operator, 'Acme');
    await operator.getByLabel('Invite by email').fill('owner@acme.test');
    await operator.getByRole('button', { name: 'Invite', exact: true }).click();
    const ownerLink = await invitationLinkIn(operator);
    assert.match(ownerLink, /\/app\/invitation#.+/);
    await operator.getByLabel('Messages to add').fill('500');
    await operator.getByLabel('Reason').fill('invoice 2026-118');
    await operator.getByRole('button', { name: 'Top up' }).click();
    await operator.getByText('Added, and written to the ledger.').waitFor();
    await checkPage(operator, 'operator-account');
    await operator.getByRole('link', { name: '← All accounts' }).click();
    await operator.getByRole('link', { name: 'Acme' }).waitFor();
    await checkPage(operator, 'operator-accounts');
    await nav(operator, 'Service health');
    await checkPage(operator, 'operator-health');
    return ownerLink;
  });

  await step('the owner follows the link, sets a password and lands on the empty overview', 90_000, async () => {
    await owner.goto(`/app/invitation${new URL(ownerLink).hash}`);
    await owner.getByText('You are invited to').waitFor();
    await checkPage(owner, 'invitation');
    await acceptInvitation(owner, ownerLink);
    await owner.getByText('No messages in the last 30 days').waitFor();
    await checkPage(owner, 'overview-empty');
  });

  const auth = await step('an API key, shown once and copied', 90_000, async () => {
    await nav(owner, 'API keys');
    await owner.getByLabel('Name').fill('ci');
    await owner.getByRole('checkbox', { name: 'webhooks' }).check();
    await owner.getByRole('button', { name: 'Create key' }).click();
    const keyDialog = owner.getByRole('dialog', { name: 'Your new API key' });
    const apiKey = (await keyDialog.locator('code').textContent()) ?? '';
    assert.ok(apiKey.length > 20, `the dialog shows the key: ${apiKey}`);
    await keyDialog.getByRole('button', { name: 'Copy the API key' }).click();
    assert.equal(await owner.evaluate('navigator.clipboard.readText()'), apiKey);
    await checkPage(owner, 'api-key-created');
    await keyDialog.getByRole('button', { name: 'I have copied it' }).click();
    await owner.getByRole('rowheader', { name: /^ci/ }).waitFor();
    await checkPage(owner, 'api-keys');
    return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  });

  await step('the API keys page tells where applications send by SMTP, and its link leads to the key form', 90_000, async () => {
    const smtp = owner.getByRole('region', { name: 'Send by SMTP' });
    assert.equal(await smtp.getByRole('definition').nth(0).locator('code').textContent(), 'mail.acme.test');
    assert.deepStrictEqual(await smtp.getByRole('listitem').allTextContents(), [`${service.submission?.starttlsPort}: no TLS (plain SMTP)`]);
    assert.equal(await smtp.getByRole('definition').nth(2).textContent(), 'apikey');
    await smtp.getByText('An API key with the email scope: make one under Create a key, above. A test key’s mail is captured, never sent.').waitFor();
    await smtp.getByText('it accepts the API key (SMTP AUTH) only from programs on the server itself').waitFor();
    await checkPage(owner, 'api-keys-smtp');
    await smtp.getByRole('button', { name: 'Copy the SMTP host' }).click();
    assert.equal(await owner.evaluate('navigator.clipboard.readText()'), 'mail.acme.test');
    await smtp.getByRole('link', { name: 'Create a key' }).click();
    assert.equal(new URL(owner.url()).pathname + new URL(owner.url()).hash, '/app/api-keys#create-a-key-heading');
    await owner.getByRole('heading', { level: 2, name: 'Create a key' }).waitFor();
  });

  await step('a sender domain is verified, each record’s result shown', 90_000, async () => {
    await nav(owner, 'Domains');
    await owner.getByLabel('Domain', { exact: true }).fill('news.acme.test');
    await owner.getByRole('button', { name: 'Add domain' }).click();
    await heading(owner, 'news.acme.test');
    const domain = await (await fetch(`${base}/v1/domains/news.acme.test`, { headers: auth })).json() as { records: { purpose: string; name: string; value: string }[] };
    const record = (purpose: string) => domain.records.find((r) => r.purpose === purpose) ?? assert.fail(`no ${purpose} record`);
    const token = record('verification');
    dns.set(token.name, [{ type: 'TXT', name: token.name, data: token.value }]);
    await owner.getByRole('button', { name: 'Verify now' }).click();
    await owner.getByText('Not verified yet.').waitFor();
    await owner.getByText(`${token.name}: found and correct`).waitFor();
    const dkim = record('dkim');
    await owner.getByText(`${dkim.name}: not found`).waitFor();
    dns.set(dkim.name, [{ type: 'TXT', name: dkim.name, data: [dkim.value.slice(0, 255), dkim.value.slice(255)] }]);
    await owner.getByRole('button', { name: 'Verify now' }).click();
    await owner.getByText('Verified: every required record was found.').waitFor();
    await checkPage(owner, 'domain');
    await nav(owner, 'Domains');
    await checkPage(owner, 'domains');
  });

  await step('a send with the key over plain HTTP shows in the log with its preview and timeline', 90_000, async () => {
    const sent = await fetch(`${base}/v1/email`, {
      method: 'POST', headers: auth,
      body: JSON.stringify(emailBody({ from: { email: 'news@news.acme.test', name: 'Acme' }, replyTo: { email: 'help@news.acme.test', name: 'Help' }, body: '<h2>Hi there from the key</h2><p>Your order <strong>A-1001</strong> ships today. Reply to this email if anything is wrong.</p>' })),
    });
    assert.equal(sent.status, 200, await sent.clone().text());
    await nav(owner, 'Messages');
    await owner.getByRole('link', { name: 'ana@example.org' }).click();
    await heading(owner, 'Message');
    await owner.getByRole('listitem').filter({ hasText: /^sent/ }).first().waitFor();
    await owner.frameLocator('iframe[title="The email as the recipient sees it"]').getByText('Hi there from the key').waitFor();
    await checkPage(owner, 'message');
    await nav(owner, 'Messages');
    await checkPage(owner, 'messages');
  });

  await step('a template is refused with a malformed placeholder, then fixed, previewed, saved and sent', 90_000, async () => {
    await nav(owner, 'Templates');
    await owner.getByRole('link', { name: 'New email template' }).click();
    await heading(owner, 'New email template');
    await owner.getByLabel('Name').fill('Welcome');
    await owner.getByRole('textbox', { name: 'HTML' }).fill('<p>Hello {{name}</p>');
    await owner.getByRole('alert').filter({ hasText: 'Incorrect variable syntax' }).waitFor();
    assert.equal(await owner.getByRole('button', { name: 'Save template' }).isDisabled(), true);
    await checkPage(owner, 'template-refused');
    await owner.getByRole('textbox', { name: 'HTML' }).fill('<p>Hello {{name}}</p>\n<p>Your order {{order}} is on its way.</p>');
    await owner.frameLocator('iframe[title="HTML preview"]').getByText('Hello Ana').waitFor();
    await owner.getByRole('button', { name: 'Save template' }).click();
    await owner.getByText('template_id', { exact: true }).waitFor();
    await owner.getByRole('button', { name: /^Send test to owner@acme\.test/ }).click();
    await owner.getByRole('status').getByRole('link', { name: 'owner@acme.test' }).waitFor();
    await checkPage(owner, 'template-editor');
    await owner.getByRole('status').getByRole('link', { name: 'owner@acme.test' }).click();
    await owner.frameLocator('iframe[title="The email as the recipient sees it"]').getByText('Hello Ana').waitFor();
    await nav(owner, 'Templates');
    await checkPage(owner, 'templates');
    // The template_id copied from its page is what a send with the key names.
    await owner.getByRole('link', { name: 'Welcome' }).click();
    await owner.getByRole('button', { name: 'Copy the template_id' }).click();
    const templateId = await owner.evaluate('navigator.clipboard.readText()') as string;
    assert.match(owner.url(), new RegExp(`/app/templates/${templateId}$`));
    const templated = await fetch(`${base}/v1/email`, {
      method: 'POST', headers: auth,
      body: JSON.stringify(emailBody({ from: { email: 'news@news.acme.test', name: 'Acme' }, replyTo: { email: 'help@news.acme.test', name: 'Help' }, to: [{ email: 'bea@example.org', name: 'Bea' }], template_id: templateId, variables: { name: 'Bea' } })),
    });
    assert.equal(templated.status, 200, await templated.clone().text());
    await nav(owner, 'Messages');
    await owner.getByRole('link', { name: 'bea@example.org' }).click();
    await owner.frameLocator('iframe[title="The email as the recipient sees it"]').getByText('Hello Bea').waitFor();
  });

  await step('a webhook test event lands in the delivery log and is retried', 90_000, async () => {
    await nav(owner, 'Webhooks');
    await owner.getByLabel('URL').fill(receiver.url);
    await owner.getByRole('button', { name: 'Save endpoint' }).click();
    await owner.getByRole('button', { name: 'Reveal' }).click();
    const secret = (await owner.getByRole('region', { name: 'Signing secret' }).locator('code').textContent()) ?? '';
    receiver.secrets = [secret];
    await owner.getByRole('button', { name: 'Send test event' }).click();
    // The log asks again by itself while a delivery is pending.
    const testRow = owner.getByRole('row').filter({ hasText: 'webhook.test' });
    await testRow.getByText('succeeded').waitFor();
    assert.deepStrictEqual(receiver.received.map((e) => e.payload.type), ['webhook.test']);
    await checkPage(owner, 'webhooks');
    await testRow.getByRole('button', { name: /^Retry/ }).click();
    await testRow.getByRole('cell', { name: '2', exact: true }).waitFor();
    await testRow.getByText('succeeded').waitFor();
    await testRow.getByRole('link', { name: 'webhook.test' }).click();
    await heading(owner, 'Webhook delivery');
    const attempts = owner.getByRole('region', { name: 'Attempts' }).getByRole('row');
    await attempts.nth(2).waitFor();
    assert.equal(await attempts.count(), 3, 'a header row and two attempts');
    assert.equal(receiver.received.length, 2);
    await checkPage(owner, 'webhook-delivery');
  });

  await step('an address is suppressed by hand and the list exported as CSV', 90_000, async () => {
    await nav(owner, 'Suppressions');
    await owner.getByRole('textbox', { name: 'Addresses' }).fill('blocked@example.org');
    await owner.getByRole('button', { name: 'Suppress' }).click();
    await owner.getByRole('rowheader', { name: 'blocked@example.org' }).waitFor();
    const download = owner.waitForEvent('download');
    await owner.getByRole('button', { name: 'Export CSV' }).click();
    const csv = await readFile(await (await download).path(), 'utf8');
    assert.match(csv, /^email,reason,msgid,created_at\r\nblocked@example\.org,manual,,/);
    await checkPage(owner, 'suppressions');
  });

  await step('the ledger shows the top-up and the overview the sends', 90_000, async () => {
    await nav(owner, 'Usage');
    await owner.getByRole('cell', { name: 'admin.top-up' }).waitFor();
    await checkPage(owner, 'usage');
    await nav(owner, 'Overview');
    await owner.getByRole('tab', { name: 'By outcome' }).waitFor();
    await checkPage(owner, 'overview');
  });

  await step('the owner invites a viewer, who cannot make a key', 90_000, async () => {
    await nav(owner, 'Users');
    await owner.getByLabel('Email', { exact: true }).fill('viewer@acme.test');
    await owner.getByLabel('Role', { exact: true }).selectOption('viewer');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    const viewerLink = await invitationLinkIn(owner);
    await owner.getByRole('rowheader', { name: 'viewer@acme.test' }).waitFor();
    await checkPage(owner, 'users');
    const viewer = await (await openContext(browser, base, problems)).newPage();
    await acceptInvitation(viewer, viewerLink);
    await nav(viewer, 'API keys');
    await viewer.getByText('Your role (viewer) can see the keys but not create or revoke them.').waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'Create key' }).count(), 0);
    await viewer.getByRole('region', { name: 'Send by SMTP' }).getByText('your role (viewer) cannot make one; ask a developer or an owner of the account.').waitFor();
    await checkPage(viewer, 'api-keys-viewer');
  });

  await step('another account’s message id is not found', 90_000, async () => {
    const other = await fetch(`${base}/admin/v1/accounts`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'other', messagesLeft: 10 }) });
    const otherKey = ((await other.json()) as { apiKey: { apiKey: string } }).apiKey.apiKey;
    const sms = await fetch(`${base}/v1/sms/send`, { method: 'POST', headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello', mobile_numbers: ['+5215512345678'] }) });
    const otherMsgid = ((await sms.json()) as { messages: { msgid: string }[] }).messages[0]?.msgid ?? assert.fail('no msgid');
    await owner.goto(`/app/messages/${otherMsgid}`);
    await heading(owner, 'Message not found');
    await checkPage(owner, 'message-not-found');
    await owner.goto('/app/no-such-page');
    await heading(owner, 'Page not found');
    await checkPage(owner, 'page-not-found');
  });

  await step('signing out ends the session in the owner’s second browser too', 90_000, async () => {
    await owner.goto('/app/profile');
    await heading(owner, 'Your profile');
    await checkPage(owner, 'profile');
    const second = await (await openContext(browser, base, problems, await ownerContext.storageState())).newPage();
    await second.goto('/app/usage');
    await heading(second, 'Usage');
    await owner.getByRole('button', { name: /owner@acme\.test/ }).click();
    await owner.getByRole('menuitem', { name: 'Sign out' }).click();
    await heading(owner, 'Sign in');
    await second.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Messages', exact: true }).click();
    await heading(second, 'Sign in');
    assert.match(second.url(), /\/app\/sign-in\?next=%2Fmessages/);
    await checkPage(second, 'sign-in');
    await second.getByLabel('Email').fill('owner@acme.test');
    await second.getByLabel('Password').fill(PASSWORD);
    await second.getByRole('button', { name: 'Sign in' }).click();
    await heading(second, 'Messages');
  });

  await step('the password-reset page asks for the address', 90_000, async () => {
    await owner.goto('/app/password-reset');
    await heading(owner, 'Reset your password');
    await checkPage(owner, 'password-reset');
  });

  await step('no page had a script error or a CSP violation', 5_000, async () => {
    assert.deepStrictEqual(problems.errors, [], 'no script error and no CSP violation on any page');
  });
});
