// Segment counts and campaign quotes bounded in cost (conditions per filter) and in time
// (HERALD_HEAVY_READ_TIMEOUT_MS: statement_timeout on PostgreSQL, slices of contacts with
// the event loop turning between them on SQLite), and exact across slices.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { longestTurnCpuMs } from '../support/event-loop-turns.ts';
import { openAccount, post, startService, type TestAccount } from '../support/service.ts';

const INVALID = 'Invalid request, a field has the wrong type or value';

/** `n` contacts on a new list, written straight into the store (an import of this size takes seconds); every third in Lima. */
async function crowd(t: TestContext, n: number, env: Record<string, string> = {}): Promise<{ service: Service; account: TestAccount; list: string }> {
  const service = await startService(t, { env });
  const account = await openAccount(service);
  const list: string = (await post(service, '/v1/lists', account.apiKey, { name: 'All', optin: 'single' })).json().list_id;
  for (let from = 0; from < n; from += 1000) {
    const contacts = Array.from({ length: Math.min(1000, n - from) }, (_, i) => ({
      id: service.deps.newId(), account_id: account.id, email: `c${from + i}@example.org`, name: null,
      attributes: JSON.stringify({ city: (from + i) % 3 === 0 ? 'Lima' : 'Quito', n: from + i, note: 'x'.repeat(40) }), created_at: 0, updated_at: 0,
    }));
    await service.deps.db.insertInto('contacts').values(contacts).execute();
    await service.deps.db.insertInto('list_members').values(contacts.map((c) => ({ list_id: list, contact_id: c.id, status: 'confirmed', created_at: 0, updated_at: 0 }))).execute();
  }
  return { service, account, list };
}

/** `n` conditions that no contact matches, so that every one is evaluated for every contact. */
const conditions = (n: number) => ({ or: Array.from({ length: Math.ceil(n / 10) }, (_, i) => ({
  or: Array.from({ length: Math.min(10, n - i * 10) }, (_, j) => ({ field: 'attributes.note', contains: `needle-${i}-${j}` })),
})) });

test('a filter of more than 50 conditions is refused with 400; 50 are counted', async (t) => {
  const { service, account, list } = await crowd(t, 10);
  const refused = await post(service, '/v1/segments/count', account.apiKey, { lists: [list], filter: conditions(51) });
  assert.deepStrictEqual([refused.statusCode, refused.json()], [400, { message: INVALID, detail: 'filter has more than 50 conditions' }]);
  const counted = await post(service, '/v1/segments/count', account.apiKey, { lists: [list], filter: conditions(50) });
  assert.deepStrictEqual([counted.statusCode, counted.json()], [200, { contacts: 0 }]);
});

test('a count over many slices of contacts is exact', async (t) => {
  const { service, account, list } = await crowd(t, 25_000);
  const res = await post(service, '/v1/segments/count', account.apiKey, { lists: [list], filter: { field: 'attributes.city', eq: 'Lima' } });
  assert.deepStrictEqual([res.statusCode, res.json()], [200, { contacts: 8334 }]);
  const campaign = await post(service, '/v1/campaigns', account.apiKey, {
    name: 'Lima', subject: 'Hi', from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'news@example.com', name: 'News' }, body: '<p>Hi</p>',
    lists: [list], filter: { field: 'attributes.city', eq: 'Lima' },
  });
  assert.equal(campaign.statusCode, 201, campaign.body);
  const quote = await service.http.inject({ method: 'GET', url: `/v1/campaigns/${campaign.json().campaign_id}/quote`, headers: { authorization: `Bearer ${account.apiKey}` } });
  assert.deepStrictEqual([quote.statusCode, quote.json().recipients, quote.json().excluded.filtered], [200, 8334, 16_666]);
});

test('a count past HERALD_HEAVY_READ_TIMEOUT_MS is answered 503, and never holds the event loop past 50 ms of work at a time', async (t) => {
  const { service, account, list } = await crowd(t, 60_000, { HERALD_HEAVY_READ_TIMEOUT_MS: '100' });
  const started = performance.now();
  const { value: res, cpuMs } = await longestTurnCpuMs(() => post(service, '/v1/segments/count', account.apiKey, { lists: [list], filter: conditions(50) }));
  const took = performance.now() - started;
  assert.deepStrictEqual([res.statusCode, res.json()], [503, {
    message: 'The request took too long to answer', detail: 'the store was read for more than 100 ms (HERALD_HEAVY_READ_TIMEOUT_MS): narrow the lists or the filter',
  }]);
  assert.ok(took < 1000, `answered in ${Math.round(took)} ms`);
  // PostgreSQL reads on its server; SQLite reads here, a slice at a time.
  assert.ok(cpuMs < 50, `the event loop was held for ${Math.round(cpuMs)} ms of work`);
});
