// DELETE /v1/contacts/:id erases the person everywhere herald keeps them as a contact, and
// keeps only what the law asks: the consent ledger's proof, the suppression, and an audit
// row that names the address by a digest.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Service } from '../../src/service.ts';
import { recordLedgerEntry } from '../../src/store/consent-ledger.ts';
import { erasuresOf } from '../../src/store/contact-erasures.ts';
import { openAccount, post, send, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T09:00:00.000Z');

async function world(t: TestContext): Promise<{ service: Service; account: TestAccount; ana: string }> {
  const service = await startService(t, { clock: () => T0 });
  const account = await openAccount(service);
  const list = (await post(service, '/v1/lists', account.apiKey, { name: 'Weekly', optin: 'single' })).json().list_id as string;
  const ana = (await post(service, '/v1/contacts', account.apiKey, { email: 'Ana@Example.org', name: 'Ana', attributes: { city: 'Lima' }, lists: [list] })).json().contact_id as string;
  return { service, account, ana };
}

const erase = (w: { service: Service; account: TestAccount }, id: string) => send(w.service, 'DELETE', `/v1/contacts/${id}`, w.account.apiKey);

test('an erasure leaves an audit row naming the contact and a digest of the address, never the address', async (t) => {
  const w = await world(t);
  assert.equal((await erase(w, w.ana)).statusCode, 204);
  const rows = await w.service.deps.db.selectFrom('contact_erasures').selectAll().execute();
  const digest = createHash('sha256').update(`${w.account.id}\nana@example.org`).digest('hex');
  assert.deepStrictEqual(rows.map((r) => [r.account_id, r.contact_id, r.address_digest, Number(r.at)]), [[w.account.id, w.ana, digest, T0]]);
  assert.equal(JSON.stringify(rows).includes('example.org'), false);
  assert.deepStrictEqual(await erasuresOf(w.service.deps.db, w.account.id, 'ANA@example.org'), [{ contactId: w.ana, at: T0 }]);
});

test('an erasure keeps the consent ledger\'s entries for the address, the proof of an opt-out', async (t) => {
  const w = await world(t);
  await recordLedgerEntry(w.service.deps.db, {
    id: '01900000-0000-7000-8000-000000000001', accountId: w.account.id, channel: 'email', address: 'ana@example.org', sender: '',
    change: 'opted_out', source: 'unsubscribe', keyword: null, proof: { msgid: 'm-1' }, at: T0,
  });
  assert.equal((await erase(w, w.ana)).statusCode, 204);
  const ledger = await w.service.deps.db.selectFrom('consent_ledger').select(['address', 'change', 'source']).where('account_id', '=', w.account.id).execute();
  assert.deepStrictEqual(ledger.map((r) => ({ ...r })), [{ address: 'ana@example.org', change: 'opted_out', source: 'unsubscribe' }]);
});

test('an erasure clears what the person sent the account by email, and leaves others\' messages', async (t) => {
  const w = await world(t);
  const inbound = (id: string, sender: string) => ({
    id, account_id: w.account.id, channel: 'email', sender, recipient: 'help@example.com', text: 'My address is Calle 1', content: '{"subject":"Hello"}',
    keyword: null, reply_to: null, provider_ref: null, received_at: T0, created_at: T0,
  });
  await w.service.deps.db.insertInto('inbound_messages').values([inbound('01900000-0000-7000-8000-00000000000a', 'ana@example.org'), inbound('01900000-0000-7000-8000-00000000000b', 'bob@example.org')]).execute();
  assert.equal((await erase(w, w.ana)).statusCode, 204);
  const rows = await w.service.deps.db.selectFrom('inbound_messages').select(['sender', 'text', 'content']).orderBy('id').execute();
  assert.deepStrictEqual(rows.map((r) => ({ ...r })), [
    { sender: 'ana@example.org', text: null, content: '{"purged":true}' },
    { sender: 'bob@example.org', text: 'My address is Calle 1', content: '{"subject":"Hello"}' },
  ]);
});
