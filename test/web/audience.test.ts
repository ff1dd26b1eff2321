// The audience and domain pages of issue 24, in Debian's Chromium against a real herald
// with the built front end: an owner saves a segment and sees it listed, edits a contact,
// exports a list (the downloaded CSV read back), erases a contact after a confirmation,
// deletes an unused sender domain and is refused for one a scheduled campaign sends from,
// and previews a campaign as a contact of its own segment; the Segments page then speaks
// Spanish. Every page is checked with axe-core at 1280 and 375 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { campaignBody } from '../support/campaigns.ts';
import { ADMIN_TOKEN, openAccount, post, startService } from '../support/service.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading } from './page-steps.ts';

// http, so the session cookie is not `Secure` on the test's http://127.0.0.1 origin.
const PUBLIC_URL = 'http://herald.test';

async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await heading(page, name);
}

test('an owner saves a segment, edits, exports and erases contacts, deletes a domain and previews a campaign as a contact of its segment', { skip: skipWithoutChromium, timeout: 180_000 }, async (t) => {
  buildWebIfStale();
  const service = await startService(t, { env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_PUBLIC_URL: PUBLIC_URL } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme', messagesLeft: 1000, rateLimitPerSecond: 100 });
  const key = account.apiKey;
  const list = (await post(service, '/v1/lists', key, { name: 'Newsletter', optin: 'single' })).json().list_id as string;
  const contactIds: Record<string, string> = {};
  for (const [email, name, city] of [['ana@example.org', 'Ana', 'Lima'], ['bob@example.org', 'Bob', 'Quito'], ['cid@example.org', 'Cid', 'Lima']] as const) {
    const res = await post(service, '/v1/contacts', key, { email, name, attributes: { city }, lists: [list] });
    assert.equal(res.statusCode, 201, res.body);
    contactIds[email] = res.json().contact_id as string;
  }
  const invited = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', role: 'owner' }),
  });
  const invitation = ((await invited.json()) as { invitation_url: string }).invitation_url;

  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const context = await openContext(browser, base, problems);
  const owner = await context.newPage();

  await step('the owner accepts the invitation and is signed in', 60_000, async () => {
    await acceptInvitation(owner, invitation);
  });

  await step('a segment is saved by name and listed, and opens again into the builder', 60_000, async () => {
    await nav(owner, 'Segments');
    await owner.getByText('No saved segments yet').waitFor();
    await owner.getByRole('group', { name: 'Send to the confirmed subscribers of' }).getByRole('checkbox', { name: /Newsletter/ }).check();
    await owner.getByRole('button', { name: 'Add a condition' }).click();
    const condition = owner.getByRole('group', { name: 'Condition 1' });
    await condition.getByLabel('Attribute name').fill('city');
    await condition.getByLabel('Value', { exact: true }).fill('Lima');
    await owner.getByText('2 contacts in this audience now').waitFor();
    await owner.getByLabel('Segment name').fill('Lima readers');
    await owner.getByRole('button', { name: 'Save segment' }).click();
    await owner.getByRole('heading', { level: 2, name: 'Audience of “Lima readers”' }).waitFor();
    const row = owner.getByRole('row').filter({ hasText: 'Lima readers' });
    await row.waitFor();
    assert.deepStrictEqual((await row.locator('th, td').allInnerTexts()).slice(0, 3), ['Lima readers', '1', 'yes']);
    await owner.getByText('1 saved segment').waitFor();
    await checkPage(owner, 'segments-saved');
    await owner.reload();
    await owner.getByRole('button', { name: 'Open Lima readers' }).click();
    await owner.getByRole('heading', { level: 2, name: 'Audience of “Lima readers”' }).waitFor();
    await owner.getByText('2 contacts in this audience now').waitFor();
  });

  await step('a contact\'s name and attributes are edited', 60_000, async () => {
    await owner.goto(`/app/contacts/${contactIds['ana@example.org']}`);
    await heading(owner, 'ana@example.org');
    await owner.getByRole('button', { name: 'Edit name and attributes' }).click();
    await owner.getByLabel('Name', { exact: true }).fill('Ana María');
    await owner.getByLabel('Attributes').fill('{"city": "Cusco", "plan": "pro"}');
    await owner.getByRole('button', { name: 'Save contact' }).click();
    await owner.getByText('Saved.', { exact: true }).waitFor();
    await owner.locator('.facts dd').first().getByText('Ana María', { exact: true }).waitFor();
    const stored = await (await fetch(`${base}/v1/contacts/${contactIds['ana@example.org']}`, { headers: { authorization: `Bearer ${key}` } })).json() as { name: string; attributes: unknown };
    assert.deepStrictEqual([stored.name, stored.attributes], ['Ana María', { city: 'Cusco', plan: 'pro' }]);
    await checkPage(owner, 'contact-edited');
  });

  await step('a list is exported as CSV, the download holding its three contacts', 60_000, async () => {
    await owner.goto(`/app/lists/${list}`);
    await heading(owner, 'Newsletter');
    await owner.getByText('3 contacts on this list, in any status').waitFor();
    const [download] = await Promise.all([owner.waitForEvent('download'), owner.getByRole('button', { name: 'Export this list (CSV)' }).click()]);
    assert.equal(download.suggestedFilename(), `contacts-${list}.csv`);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.split('\r\n').map((line) => line.replace(/,\d{4}-[^,]+Z,/, ',<at>,'));
    assert.deepStrictEqual(lines, [
      'email,name,status,created_at,attributes',
      'ana@example.org,Ana María,confirmed,<at>,"{""city"":""Cusco"",""plan"":""pro""}"',
      'bob@example.org,Bob,confirmed,<at>,"{""city"":""Quito""}"',
      'cid@example.org,Cid,confirmed,<at>,"{""city"":""Lima""}"',
      '',
    ]);
  });

  await step('a contact is erased after the confirmation dialog, and is gone', 60_000, async () => {
    await owner.goto(`/app/contacts/${contactIds['cid@example.org']}`);
    await heading(owner, 'cid@example.org');
    await owner.getByRole('button', { name: 'Erase contact' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Erase this contact?' });
    await dialog.getByText('cid@example.org and everything herald holds about it as a contact go.', { exact: false }).waitFor();
    await checkPage(owner, 'contact-erase-dialog');
    await dialog.getByRole('button', { name: 'Erase', exact: true }).click();
    await heading(owner, 'Lists');
    const gone = await fetch(`${base}/v1/contacts/${contactIds['cid@example.org']}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(gone.status, 404);
  });

  await step('an unused domain is deleted; one a scheduled campaign sends from is refused, saying why', 60_000, async () => {
    assert.equal((await post(service, '/v1/domains', key, { domain: 'unused.acme.test' })).statusCode, 201);
    const campaign = (await post(service, '/v1/campaigns', key, campaignBody([list], { name: 'August news', send_at: '2099-01-01T00:00:00Z' }))).json().campaign_id as string;
    assert.equal((await post(service, `/v1/campaigns/${campaign}/send`, key, {})).statusCode, 200);
    await nav(owner, 'Domains');
    await owner.getByRole('link', { name: 'unused.acme.test' }).click();
    await heading(owner, 'unused.acme.test');
    await owner.getByRole('button', { name: 'Delete domain' }).click();
    await owner.getByRole('dialog', { name: 'Delete this domain?' }).getByRole('button', { name: 'Delete domain' }).click();
    await heading(owner, 'Domains');
    await owner.getByRole('link', { name: 'unused.acme.test' }).waitFor({ state: 'detached' });
    await owner.getByRole('link', { name: 'example.com' }).click();
    await heading(owner, 'example.com');
    await owner.getByRole('button', { name: 'Delete domain' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Delete this domain?' });
    await dialog.getByRole('button', { name: 'Delete domain' }).click();
    await dialog.getByRole('alert').getByText(`The domain is used by a scheduled or running campaign — used by campaign ${campaign} (August news)`).waitFor();
    await checkPage(owner, 'domain-delete-refused');
  });

  await step('Preview as offers the contacts of the campaign\'s segment, not of its first list', 60_000, async () => {
    const draft = (await post(service, '/v1/campaigns', key, campaignBody([list], { name: 'Quito only', filter: { field: 'attributes.city', eq: 'Quito' } }))).json().campaign_id as string;
    await owner.goto(`/app/campaigns/${draft}/edit`);
    await owner.getByLabel('Campaign name').waitFor();
    const previewAs = owner.getByLabel('Preview as');
    await previewAs.locator('option', { hasText: 'bob@example.org' }).waitFor({ state: 'attached' });
    await owner.getByText('Subject: News for Bob').waitFor();
    assert.deepStrictEqual(await previewAs.locator('option').allInnerTexts(), ['Bob <bob@example.org>']);
  });

  await step('the Segments, list and domain pages speak Spanish when chosen', 60_000, async () => {
    await owner.evaluate("localStorage.setItem('herald.language', 'es')");
    await owner.goto('/app/segments');
    await heading(owner, 'Segmentos');
    await owner.getByRole('heading', { level: 2, name: 'Segmentos guardados' }).waitFor();
    await owner.getByText('1 segmento guardado').waitFor();
    // Checked before an audience is open: the copy button's own word is the shared component's, translated apart.
    await checkPage(owner, 'segments-es');
    await owner.getByRole('button', { name: 'Abrir Lima readers' }).click();
    // Ana moved to Cusco and Cid was erased: nobody is left in Lima.
    await owner.getByText('0 contactos en esta audiencia ahora').waitFor();
    await owner.goto(`/app/lists/${list}`);
    await owner.getByText('2 contactos en esta lista, en cualquier estado').waitFor();
    await checkPage(owner, 'list-es');
    await owner.goto('/app/domains/example.com');
    await owner.getByRole('heading', { level: 2, name: 'Registros DNS que publicar' }).waitFor();
    await owner.getByRole('button', { name: 'Eliminar dominio' }).waitFor();
  });

  assert.deepStrictEqual(problems.errors, []);
});
