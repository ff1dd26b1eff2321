// The operator console and the account's team and keys in the browser (issue 24, items 5
// and 6): the operator edits an account's allow-list, issues and revokes a key, tops up
// with a reason that lands in the ledger, and lists the WhatsApp templates; an owner saves
// a role change with its button and hears it, and invites again keeping the role; a
// developer is offered only the scopes they may grant. Focus after each action is asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { ADMIN_TOKEN, addWhatsappTemplate, openAccount, startService } from '../support/service.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading, operatorSignIn } from './page-steps.ts';

/** The focused element's accessible clue: its text, or its aria-label for a labelled control. */
const focused = (page: Page): Promise<string> =>
  page.evaluate('(document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? "").trim()') as Promise<string>;

test('the operator edits an account\'s allow-list, keys, ledger and WhatsApp templates; owners and developers manage people and keys', { skip: skipWithoutChromium, timeout: 180_000 }, async (t) => {
  buildWebIfStale();
  const service = await startService(t, { env: { HERALD_DATABASE_URL: 'sqlite::memory:' } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme' });
  await addWhatsappTemplate(service, account.id, { name: 'order_ready', language: 'es', body: 'Su pedido {{1}} está listo', paramCount: 1 });
  const invite = async (email: string, role: string): Promise<string> => {
    const res = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email, role }),
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { invitation_url: string }).invitation_url;
  };
  const ownerLink = await invite('owner@acme.test', 'owner');
  const developerLink = await invite('dev@acme.test', 'developer');
  await invite('vi@acme.test', 'viewer');
  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const operator = await (await openContext(browser, base, problems)).newPage();

  await step('the operator saves the allow-list and focus lands on what was saved', 60_000, async () => {
    await operatorSignIn(operator, ADMIN_TOKEN);
    await operator.goto(`/app/operator/accounts/${account.id}`);
    await heading(operator, 'Acme');
    await operator.getByLabel('Addresses and ranges, one a line').fill('203.0.113.0/24');
    await operator.getByLabel('The list binds').selectOption('keys');
    await operator.getByRole('button', { name: 'Save the allow-list' }).click();
    await operator.getByText('Allow-list saved.').waitFor();
    assert.equal(await focused(operator), 'Allow-list saved.');
    const read = await fetch(`${base}/admin/v1/accounts/${account.id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const saved = (await read.json()) as { ipAllowList: string[]; allowListAppliesTo: string };
    assert.deepStrictEqual([saved.ipAllowList, saved.allowListAppliesTo], [['203.0.113.0/24'], 'keys']);
  });

  await step('the operator issues a named key with two scopes, then revokes it, and focus lands on the outcome', 60_000, async () => {
    const keys = operator.getByRole('region', { name: 'API keys' });
    await keys.getByLabel('Name', { exact: true }).fill('billing');
    await keys.getByText('7 of 200 characters').waitFor();
    await keys.getByRole('checkbox', { name: 'sms' }).check();
    await keys.getByRole('button', { name: 'Issue key' }).click();
    const dialog = operator.getByRole('dialog', { name: 'The new API key' });
    await dialog.getByText('Key “billing”, scopes email, sms.', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await keys.getByRole('rowheader', { name: /^billing/ }).waitFor();
    assert.equal(await operator.evaluate('document.activeElement === document.getElementById(document.querySelector("#api-keys-heading").closest("section").querySelector("form label").htmlFor)'), true);
    assert.equal(await keys.getByText('Give the key a name, such as where it is used').count(), 0);
    await keys.getByRole('button', { name: 'Revoke billing' }).click();
    await operator.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await keys.getByText('Key “billing” revoked: its requests are refused from now on.').waitFor();
    assert.equal(await focused(operator), 'Key “billing” revoked: its requests are refused from now on.');
    assert.equal(await keys.getByRole('button', { name: 'Revoke billing' }).count(), 0);
  });

  await step('the operator tops up with a reason, and the ledger shows the row', 60_000, async () => {
    const ledger = operator.getByRole('region', { name: 'Ledger and top-ups' });
    await ledger.getByLabel('Messages to add').fill('250');
    await ledger.getByRole('button', { name: 'Top up' }).click();
    await ledger.getByText('Say why: it goes into the ledger').waitFor();
    await ledger.getByLabel('Reason').fill('invoice 2026-200');
    await ledger.getByRole('button', { name: 'Top up' }).click();
    const said = 'Added, and written to the ledger. Messages +250, balance 0.00, reason “invoice 2026-200”.';
    await ledger.getByText(said).waitFor();
    assert.equal(await focused(operator), said);
    const row = ledger.getByRole('row').filter({ hasText: 'invoice 2026-200' });
    // The ledger is read again after the top-up; its row may come after the notice.
    await row.waitFor();
    assert.deepStrictEqual(await row.getByRole('cell').allTextContents(), ['admin.top-up', '+250', '0.00', 'invoice 2026-200']);
  });

  await step('the operator lists the account\'s WhatsApp templates, adds one and removes it', 60_000, async () => {
    const templates = operator.getByRole('region', { name: 'WhatsApp templates' });
    const row = templates.getByRole('row').filter({ hasText: 'order_ready' });
    await row.waitFor();
    assert.deepStrictEqual((await row.getByRole('cell').allTextContents()).slice(0, 4), ['es', 'Su pedido {{1}} está listo', '1', 'approved']);
    await templates.getByLabel('Name', { exact: true }).fill('welcome');
    await templates.getByLabel('Body').fill('Welcome, {{1}}');
    await templates.getByLabel('Status').selectOption('PENDING');
    await templates.getByRole('button', { name: 'Add template' }).click();
    await templates.getByText('Template “welcome” added.').waitFor();
    assert.equal(await focused(operator), 'Template “welcome” added.');
    const added = templates.getByRole('row').filter({ hasText: 'welcome' });
    await added.waitFor();
    assert.deepStrictEqual((await added.getByRole('cell').allTextContents()).slice(0, 4), ['en_US', 'Welcome, {{1}}', '1', 'pending']);
    await templates.getByRole('button', { name: 'Remove welcome' }).click();
    await operator.getByRole('dialog', { name: 'Remove this template?' }).getByRole('button', { name: 'Remove template' }).click();
    await templates.getByText('Template “welcome” removed.').waitFor();
    assert.equal(await focused(operator), 'Template “welcome” removed.');
    assert.equal(await templates.getByRole('row').filter({ hasText: 'welcome' }).count(), 0);
    await checkPage(operator, 'console-account');
  });

  await step('the console speaks Spanish', 60_000, async () => {
    await operator.evaluate('localStorage.setItem("herald.language", "es")');
    await operator.reload();
    await operator.getByRole('heading', { level: 2, name: 'Movimientos y recargas' }).waitFor();
    await operator.getByRole('region', { name: 'Plantillas de WhatsApp' }).getByRole('button', { name: 'Quitar order_ready' }).waitFor();
    await checkPage(operator, 'console-account-es');
  });

  const owner = await (await openContext(browser, base, problems)).newPage();

  await step('an owner changes a role only with Save, hears it, and keeps focus on the button', 60_000, async () => {
    await acceptInvitation(owner, ownerLink);
    await owner.goto('/app/users');
    await heading(owner, 'Users');
    const select = owner.getByLabel('Role of vi@acme.test', { exact: true });
    await select.focus();
    await owner.keyboard.press('ArrowUp');
    assert.equal(await select.inputValue(), 'developer');
    const before = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(((await before.json()) as { users: { email: string; role: string }[] }).users.find((u) => u.email === 'vi@acme.test')?.role, 'viewer');
    await owner.getByRole('button', { name: 'Save role of vi@acme.test' }).click();
    await owner.getByRole('status').filter({ hasText: 'vi@acme.test is now developer.' }).waitFor();
    assert.equal(await focused(owner), 'Save role of vi@acme.test');
    await checkPage(owner, 'users-role-saved');
  });

  await step('inviting the same person again keeps their role unless changed', 60_000, async () => {
    await owner.getByLabel('Email', { exact: true }).fill('vi@acme.test');
    assert.equal(await owner.getByLabel('Role', { exact: true }).inputValue(), 'keep');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Invitation made, not emailed' });
    await dialog.getByText('vi@acme.test is invited as developer', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    assert.equal(await owner.evaluate('document.activeElement?.getAttribute("type")'), 'email');
  });

  await step('a developer is offered only the scopes they may grant, and the emptied name shows no error', 60_000, async () => {
    const developer = await (await openContext(browser, base, problems)).newPage();
    await acceptInvitation(developer, developerLink);
    await developer.goto('/app/api-keys');
    await heading(developer, 'API keys');
    const scopes = developer.getByRole('group', { name: 'Scopes' });
    assert.deepStrictEqual(await scopes.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b.parentElement?.textContent ?? '').trim())), ['email', 'sms', 'whatsapp', 'webhooks']);
    await developer.getByLabel('Name', { exact: true }).fill('ci');
    await developer.getByRole('button', { name: 'Create key' }).click();
    await developer.getByRole('dialog', { name: 'Your new API key' }).getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await developer.getByText('Give the key a name, such as where it is used').count(), 0);
    await developer.getByRole('link', { name: 'Request log of ci' }).waitFor();
    await developer.getByRole('button', { name: 'Revoke ci' }).click();
    await developer.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await developer.getByText('Key “ci” revoked: its requests are refused from now on.').waitFor();
    assert.equal(await focused(developer), 'Key “ci” revoked: its requests are refused from now on.');
    await checkPage(developer, 'api-keys-developer');
  });

  await step('the users and API keys pages speak Spanish', 60_000, async () => {
    await owner.evaluate('localStorage.setItem("herald.language", "es")');
    await owner.goto('/app/users');
    await heading(owner, 'Usuarios');
    await owner.getByRole('button', { name: 'Guardar rol de vi@acme.test' }).waitFor();
    await checkPage(owner, 'users-es');
    await owner.goto('/app/api-keys');
    await heading(owner, 'Claves de API');
    await owner.getByRole('group', { name: 'Ámbitos' }).getByRole('checkbox', { name: 'account (claves, usuarios, uso)' }).waitFor();
    // A removed allow-list entry hands focus to the entry now in its place, then to "Add an entry".
    await owner.getByRole('button', { name: 'Añadir una entrada' }).click();
    await owner.getByRole('button', { name: 'Añadir una entrada' }).click();
    await owner.getByRole('textbox', { name: 'Entrada 2' }).fill('192.0.2.9');
    // The operator's 203.0.113.0/24 is entry 1.
    await owner.getByRole('button', { name: 'Quitar la entrada 1' }).click();
    assert.equal(await owner.evaluate('document.activeElement?.value'), '192.0.2.9');
    await owner.getByRole('button', { name: 'Quitar la entrada 1' }).click();
    await owner.getByRole('button', { name: 'Quitar la entrada 1' }).click();
    assert.equal(await focused(owner), 'Añadir una entrada');
    await checkPage(owner, 'api-keys-es');
  });

  assert.deepStrictEqual(problems.errors, []);
});
