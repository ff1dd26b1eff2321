// POST /v1/segments/count: lists minus excluded lists, narrowed by the filter language,
// each operator on both stores; engagement predicates over campaign messages' events;
// the keyset pages a campaign runner walks (store/segments.ts segmentPage).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { segmentPage } from '../../src/store/segments.ts';
import { recordEvent } from '../../src/store/messages.ts';
import { emailBody, openAccount, post, send } from '../support/service.ts';
import { CHROME, T0, iso, sentMail, trackingWorld, visit, type TrackingWorld } from '../support/sent-mail.ts';

const CAMPAIGN = '01a20000-0000-7000-8000-00000000c0de';
const INVALID = 'Invalid request, a field has the wrong type or value';

interface Audience {
  readonly world: TrackingWorld;
  readonly lists: { readonly a: string; readonly b: string; readonly x: string };
  readonly ids: Readonly<Record<'ana' | 'bob' | 'cid' | 'dee' | 'eve', string>>;
}

async function audience(t: TestContext): Promise<Audience> {
  const world = await trackingWorld(t);
  const list = async (name: string) => (await post(world.service, '/v1/lists', world.account.apiKey, { name, optin: 'single' })).json().list_id as string;
  const lists = { a: await list('A'), b: await list('B'), x: await list('Excluded') };
  const contact = async (email: string, body: Record<string, unknown>) => (await post(world.service, '/v1/contacts', world.account.apiKey, { email, ...body })).json().contact_id as string;
  const ids = {
    ana: await contact('ana@example.org', { name: 'Ana Pérez', lists: [lists.a], attributes: { city: 'Lima', age: 30, tags: ['vip', 'beta'], vip: true, address: { city: 'Cusco' } } }),
    bob: await contact('bob@example.org', { name: 'Bob', lists: [lists.a, lists.b], attributes: { city: 'Quito', age: 41, zip: '01234' } }),
    cid: await contact('cid@example.org', { lists: [lists.b] }),
    dee: await contact('dee@example.org', { name: 'Dee', lists: [lists.a, lists.x], attributes: { city: 'Lima' } }),
    eve: await contact('eve@example.org', { name: 'Eve', lists: [lists.a], attributes: { city: 'Lima' } }),
  };
  await send(world.service, 'PATCH', `/v1/contacts/${ids.eve}`, world.account.apiKey, { unsubscribe: [lists.a] });
  return { world, lists, ids };
}

async function count(a: Audience, body: Record<string, unknown>): Promise<number> {
  const res = await post(a.world.service, '/v1/segments/count', a.world.account.apiKey, body);
  assert.equal(res.statusCode, 200, `${JSON.stringify(body)} → ${res.body}`);
  assert.deepStrictEqual(Object.keys(res.json()), ['contacts']);
  return res.json().contacts;
}

test('a segment counts confirmed subscribers of any of its lists once, minus the excluded lists', async (t) => {
  const a = await audience(t);
  assert.equal(await count(a, { lists: [a.lists.a] }), 3); // ana, bob, dee (eve unsubscribed)
  assert.equal(await count(a, { lists: [a.lists.a, a.lists.b] }), 4); // bob once
  assert.equal(await count(a, { lists: [a.lists.a, a.lists.b], exclude_lists: [a.lists.x] }), 3);
  assert.equal(await count(a, { lists: [a.lists.x] }), 1);
});

test('each field operator selects the contacts docs/campaigns.md says it does', async (t) => {
  const a = await audience(t);
  const lists = [a.lists.a, a.lists.b]; // ana, bob, cid, dee
  const cases: [unknown, number][] = [
    [{ field: 'attributes.city', eq: 'Lima' }, 2],
    [{ field: 'attributes.age', eq: 30 }, 1],
    [{ field: 'attributes.age', eq: '30' }, 0],
    [{ field: 'attributes.vip', eq: true }, 1],
    [{ field: 'attributes.vip', eq: false }, 0],
    [{ field: 'attributes.city', neq: 'Lima' }, 2],
    [{ field: 'attributes.city', in: ['Lima', 'Quito'] }, 3],
    [{ field: 'attributes.age', in: [30, 41, 'x'] }, 2],
    [{ field: 'name', exists: true }, 3],
    [{ field: 'attributes.zip', exists: false }, 3],
    [{ field: 'email', eq: 'BOB@example.org' }, 1],
    [{ field: 'email', contains: 'EXAMPLE.org' }, 4],
    [{ field: 'name', contains: 'ana p' }, 1],
    [{ field: 'name', contains: '%' }, 0],
    [{ field: 'attributes.city', contains: 'im' }, 2],
    [{ field: 'attributes.tags', contains: 'vip' }, 1],
    [{ field: 'attributes.age', gt: 35 }, 1],
    [{ field: 'attributes.age', lt: 35 }, 1],
    [{ field: 'attributes.city', gt: 'M' }, 1],
    [{ field: 'name', lt: 'C' }, 2],
    [{ field: 'attributes.address.city', eq: 'Cusco' }, 1],
    [{ field: 'created_at', gt: iso(T0 - 1) }, 4],
    [{ field: 'created_at', lt: iso(T0) }, 0],
    [{ and: [{ field: 'attributes.city', eq: 'Lima' }, { field: 'attributes.age', gt: 20 }] }, 1],
    [{ or: [{ field: 'attributes.city', eq: 'Quito' }, { field: 'attributes.vip', eq: true }] }, 2],
    [{ not: { field: 'name', exists: true } }, 1],
    [{ not: { field: 'attributes.city', eq: 'Lima' } }, 2],
  ];
  for (const [filter, expected] of cases) assert.equal(await count(a, { lists, filter }), expected, JSON.stringify(filter));
});

test('engagement predicates read human opens and clicks of the campaign\'s messages, and deliveries within N days', async (t) => {
  const a = await audience(t);
  const { world } = a;
  // Campaign messages as the runner will make them: ordinary messages carrying the campaign and the contact.
  const msgids: Record<string, string> = {};
  for (const name of ['ana', 'bob', 'dee'] as const) {
    const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody({ to: [{ email: `${name}@example.org` }], body: '<p><a href="https://shop.example.com/">Shop</a></p>' }));
    const msgid: string = res.json().to[0].msgid;
    msgids[name] = msgid;
    await world.service.deps.db.updateTable('messages').set({ campaign_id: CAMPAIGN, contact_id: a.ids[name] }).where('id', '=', msgid).execute();
  }
  world.clock.now += 1000;
  await world.service.worker.drain();
  world.clock.now += 60_000;
  const ana = await sentMail(world, msgids['ana'] ?? '');
  assert.equal((await visit(world, 'GET', ana.pixel ?? '', { userAgent: CHROME })).statusCode, 200);
  assert.equal((await visit(world, 'GET', ana.clicks[0] ?? '', { userAgent: CHROME })).statusCode, 302);
  const bob = await sentMail(world, msgids['bob'] ?? '');
  // Apple Mail Privacy Protection fetches every pixel: a machine open, which does not count.
  assert.equal((await visit(world, 'GET', bob.pixel ?? '', { userAgent: 'Mozilla/5.0' })).statusCode, 200);
  assert.equal((await visit(world, 'GET', bob.clicks[0] ?? '', { userAgent: 'Mozilla/5.0 (compatible; Proofpoint URL Defense)' })).statusCode, 302);
  await world.service.deps.commit.run((tx) => recordEvent(tx, { messageId: msgids['dee'] ?? '', status: 'delivered', eventId: world.service.deps.newId(), at: world.clock.now, data: {} }));

  const lists = [a.lists.a, a.lists.b];
  assert.equal(await count(a, { lists, filter: { opened: CAMPAIGN } }), 1);
  assert.equal(await count(a, { lists, filter: { clicked: CAMPAIGN } }), 1);
  assert.equal(await count(a, { lists, filter: { not_opened: CAMPAIGN } }), 2); // bob (only a machine opened) and dee; not cid, who got none
  assert.equal(await count(a, { lists, filter: { not: { opened: CAMPAIGN } } }), 3);
  assert.equal(await count(a, { lists, filter: { opened: '01a20000-0000-7000-8000-000000000000' } }), 0);
  assert.equal(await count(a, { lists, filter: { delivered_within: 1 } }), 1);
  world.clock.now += 2 * 86_400_000;
  assert.equal(await count(a, { lists, filter: { delivered_within: 1 } }), 0);
  assert.equal(await count(a, { lists, filter: { delivered_within: 3 } }), 1);
  // Another account's contacts never match this account's campaign messages.
  const other = await openAccount(world.service, { name: 'other' });
  const otherList = (await post(world.service, '/v1/lists', other.apiKey, { name: 'A', optin: 'single' })).json().list_id;
  await post(world.service, '/v1/contacts', other.apiKey, { email: 'ana@example.org', lists: [otherList] });
  const res = await post(world.service, '/v1/segments/count', other.apiKey, { lists: [otherList], filter: { opened: CAMPAIGN } });
  assert.deepStrictEqual(res.json(), { contacts: 0 });
});

test('malformed segments are refused with a detail naming the node', async (t) => {
  const a = await audience(t);
  const lists = [a.lists.a];
  for (const [body, detail] of [
    [{}, 'lists is required'],
    [{ lists: [] }, 'lists must have 1 to 50 items'],
    [{ lists, filter: 'city=Lima' }, 'filter must be an object with one operator'],
    [{ lists, filter: { field: 'attributes.city' } }, 'filter must have exactly one operator of: and, or, not, eq, neq, in, exists, contains, gt, lt, opened, clicked, not_opened, delivered_within'],
    [{ lists, filter: { field: 'attributes.city', eq: 'Lima', neq: 'Quito' } }, 'filter must have exactly one operator of: and, or, not, eq, neq, in, exists, contains, gt, lt, opened, clicked, not_opened, delivered_within'],
    [{ lists, filter: { and: [] } }, 'filter.and must have 1 to 20 items'],
    [{ lists, filter: { and: [{ field: 'attributes.city', eq: {} }] } }, 'filter.and[0].eq must be a string, a number or true/false'],
    [{ lists, filter: { or: [{ not: { field: 'phone', exists: true } }] } }, 'filter.or[0].not.field must be email, name, created_at or attributes.<name> (at most 3 names of letters, digits, spaces, - or _)'],
    [{ lists, filter: { field: 'name', gt: 3 } }, 'filter.gt must be text for name'],
    [{ lists, filter: { field: 'created_at', eq: 'x' } }, 'filter: created_at takes gt or lt only'],
    [{ lists, filter: { field: 'created_at', gt: 'yesterday' } }, 'filter.gt must be an ISO-8601 time'],
    [{ lists, filter: { opened: 'x' } }, 'filter.opened must be an id'],
    [{ lists, filter: { delivered_within: 0 } }, 'filter.delivered_within must be a whole number from 1 to 3650'],
    [{ lists, filter: { field: 'attributes.x', in: [] } }, 'filter.in must have 1 to 100 items'],
    [{ lists, filter: { field: 'attributes.x', contains: 'a', extra: 1 } }, 'filter must have exactly one operator of: and, or, not, eq, neq, in, exists, contains, gt, lt, opened, clicked, not_opened, delivered_within'],
    [{ lists, filter: { and: Array.from({ length: 20 }, () => ({ or: Array.from({ length: 6 }, () => ({ field: 'name', exists: true })) })) } }, 'filter has more than 100 nodes'],
    [{ lists, filter: Array.from({ length: 11 }).reduce<unknown>((inner) => ({ not: inner }), { field: 'name', exists: true }) }, 'filter is more than 10 levels deep'],
  ] as const) {
    const res = await post(a.world.service, '/v1/segments/count', a.world.account.apiKey, body);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail }], JSON.stringify(body).slice(0, 120));
  }
});

test('a list of another account, in lists or exclude_lists, answers 404 naming it', async (t) => {
  const a = await audience(t);
  const other = await openAccount(a.world.service, { name: 'other' });
  const mine = (await post(a.world.service, '/v1/lists', other.apiKey, { name: 'Mine', optin: 'single' })).json().list_id;
  for (const [body, detail] of [
    [{ lists: [a.lists.a] }, 'lists[0] is not a list of this account'],
    [{ lists: [mine], exclude_lists: [mine, a.lists.x] }, 'exclude_lists[1] is not a list of this account'],
  ] as const) {
    const res = await post(a.world.service, '/v1/segments/count', other.apiKey, body);
    assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found', detail }]);
  }
});

test('a campaign runner walks a segment in contact id order, a page at a time after the last id', async (t) => {
  const a = await audience(t);
  const { deps } = a.world.service;
  const segment = { lists: [a.lists.a, a.lists.b], exclude_lists: [a.lists.x] };
  const seen: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await segmentPage(deps.db, a.world.account.id, segment, { ...(after === undefined ? {} : { after }), limit: 2 }, deps.clock());
    if (page.contacts.length === 0) break;
    seen.push(page.contacts.map((c) => c.email));
    after = page.contacts.at(-1)?.id;
  }
  assert.deepStrictEqual(seen, [['ana@example.org', 'bob@example.org'], ['cid@example.org']]);
  const { contacts: [ana] } = await segmentPage(deps.db, a.world.account.id, { ...segment, filter: { field: 'attributes.vip', eq: true } }, { limit: 10 }, deps.clock());
  assert.deepStrictEqual([ana?.id, ana?.name, ana?.attributes], [a.ids.ana, 'Ana Pérez', { city: 'Lima', age: 30, tags: ['vip', 'beta'], vip: true, address: { city: 'Cusco' } }]);
});

test('a page of a segment looks through a window of contacts only, and says where it stopped', async (t) => {
  const a = await audience(t);
  const { deps } = a.world.service;
  const segment = { lists: [a.lists.a, a.lists.b], exclude_lists: [a.lists.x] };
  const all = (await deps.db.selectFrom('contacts').select('id').where('account_id', '=', a.world.account.id).orderBy('id').execute()).map((r) => r.id);
  const walk: { emails: string[]; scannedTo: string | null }[] = [];
  let after: string | undefined;
  for (let i = 0; i < all.length + 1; i++) {
    const page = await segmentPage(deps.db, a.world.account.id, segment, { ...(after === undefined ? {} : { after }), limit: 10, scan: 1 }, deps.clock());
    walk.push({ emails: page.contacts.map((c) => c.email), scannedTo: page.scannedTo });
    if (page.scannedTo === null) break;
    after = page.scannedTo;
  }
  // One contact looked at per page: the walk stops at each contact in id order, then null past the last.
  assert.deepStrictEqual(walk.map((p) => p.scannedTo), [...all, null]);
  assert.deepStrictEqual(walk.flatMap((p) => p.emails), ['ana@example.org', 'bob@example.org', 'cid@example.org']);
});
