// A campaign survives its processes: 20,000 contacts relayed to an SMTP peer on
// loopback, the only process SIGKILLed while the campaign runs and started again —
// every contact has exactly one message row, the account is billed exactly once per
// message, the campaign ends `finished`, and what the peer received twice is no more
// than the deliveries that were in flight. Then two worker processes on one
// PostgreSQL share a campaign's batches through their leases (SKIP LOCKED).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';
import { startHerald, type HeraldProcess } from '../support/herald-process.ts';
import { ADMIN_TOKEN, ledgerByReason, ledgerOf, messagesLeftOf, openAccountByAdmin, skipWithoutServers, startCluster } from '../support/multi-process.ts';
import { msgidOfMailFrom } from '../support/verp.ts';

const CONTACTS = 20_000;
/** The outbox worker's email slots (DEFAULT_WORKER_OPTIONS.concurrency): at most these can be on the wire at a kill. */
const IN_FLIGHT_SLOTS = 128;

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}


async function call(api: HeraldProcess, apiKey: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Response> {
  const request = () => fetch(`${api.url}${path}`, {
    method, headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  if (method !== 'GET') return request();
  // A pooled connection the server closed after its keep-alive time (5 s) while the test
  // waited fails with ECONNRESET on reuse; a read is simply asked again.
  try {
    return await request();
  } catch {
    return request();
  }
}

/**
 * A list of `count` contacts, imported as CSV and read by the process's import runner;
 * the list id. Their addresses are spread over 100 domains, as a real audience's are:
 * the campaign keeps the default per-domain pace, whose state must survive the kill too.
 */
async function audienceOf(api: HeraldProcess, apiKey: string, count: number): Promise<string> {
  const list = (await (await call(api, apiKey, 'POST', '/v1/lists', { name: 'Everyone', optin: 'single' })).json() as { list_id: string }).list_id;
  const csv = ['email,name,city', ...Array.from({ length: count }, (_, i) => `c${i}@d${i % 100}.example.org,Contact ${i},City ${i % 7}`)].join('\n');
  const accepted = await call(api, apiKey, 'POST', `/v1/contacts/imports?list_id=${list}`, csv, 'text/csv');
  assert.equal(accepted.status, 202, await accepted.clone().text());
  const { import_id: importId } = await accepted.json() as { import_id: string };
  await waitFor(async () => ((await (await call(api, apiKey, 'GET', `/v1/contacts/imports/${importId}`)).json()) as { status: string }).status === 'finished', 'the import');
  return list;
}

async function startCampaign(api: HeraldProcess, apiKey: string, list: string): Promise<string> {
  const created = await call(api, apiKey, 'POST', '/v1/campaigns', {
    name: 'Crash', subject: 'Hello {{contact.name}}', from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' },
    body: 'Hi {{contact.name}} of {{contact.attributes.city}}', lists: [list],
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { campaign_id: id } = await created.json() as { campaign_id: string };
  const sent = await call(api, apiKey, 'POST', `/v1/campaigns/${id}/send`);
  assert.equal(sent.status, 200, await sent.clone().text());
  return id;
}

const statusOf = async (api: HeraldProcess, apiKey: string, id: string): Promise<string> =>
  ((await (await call(api, apiKey, 'GET', `/v1/campaigns/${id}`)).json()) as { status: string }).status;

function wire(sink: SmtpSink): { total: number; unique: number } {
  const received = sink.messages.map((m) => msgidOfMailFrom(m.mailFrom));
  return { total: received.length, unique: new Set(received).size };
}

test('a campaign SIGKILLed while it runs ends finished after a restart: one message per contact, billed once, duplicates within the slots in flight', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-campaign-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A relay without STARTTLS: herald's relay transport refuses the sink's expired certificate, rightly.
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const env = {
    HERALD_DATABASE_URL: `sqlite:${join(dir, 'herald.db')}`, HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
    HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}`, HERALD_BOUNCE_DOMAIN: 'bounces.example.com', HERALD_PUBLIC_URL: 'https://herald.example.com',
  };
  let herald = await startHerald('all', env);
  t.after(() => herald.kill());
  const account = await openAccountByAdmin(herald, { messagesLeft: 50_000, rateLimitPerSecond: 100_000 });
  const list = await audienceOf(herald, account.apiKey, CONTACTS);
  const id = await startCampaign(herald, account.apiKey, list);

  await waitFor(() => sink.messages.length >= 1_000, 'deliveries to start');
  await herald.kill('SIGKILL');
  const atKill = wire(sink);
  const progress = new DatabaseSync(join(dir, 'herald.db'), { readOnly: true });
  const made = { ...progress.prepare('select queued, walked from campaigns where id = ?').get(id) };
  progress.close();
  assert.ok(atKill.unique < CONTACTS, `the kill landed mid-campaign (${atKill.unique} of ${CONTACTS} received)`);

  herald = await startHerald('all', env);
  try {
    await waitFor(async () => (await statusOf(herald, account.apiKey, id)) === 'finished', 'the campaign to finish after the restart', 300_000);
  } catch (error) {
    throw new Error(`${String(error)}; herald ${JSON.stringify(herald.exit)}:\n${herald.output()}`);
  }
  const after = wire(sink);
  t.diagnostic(`at the kill: ${atKill.unique} received, ${JSON.stringify(made)} made; after the restart: ${after.total} received, ${after.unique} unique, ${after.total - after.unique} twice`);
  assert.equal(after.unique, CONTACTS, 'every contact\'s message reached the peer');
  assert.ok(after.total - after.unique <= IN_FLIGHT_SLOTS, `duplicates (${after.total - after.unique}) at most the deliveries in flight (${IN_FLIGHT_SLOTS})`);
  assert.equal(await messagesLeftOf(herald, account.id), 50_000 - CONTACTS, 'each contact billed once');
  assert.deepStrictEqual(ledgerByReason(await ledgerOf(herald, account.id))['campaign.send'], { entries: 1, messages: -CONTACTS, balance: 0 });

  await herald.kill('SIGTERM');
  const db = new DatabaseSync(join(dir, 'herald.db'), { readOnly: true });
  t.after(() => db.close());
  assert.deepStrictEqual({ ...db.prepare('select count(*) as messages, count(distinct contact_id) as contacts from messages where campaign_id = ?').get(id) }, { messages: CONTACTS, contacts: CONTACTS });
  assert.deepStrictEqual({ ...db.prepare('select billed, queued, dropped, refunded, walked from campaigns where id = ?').get(id) }, { billed: CONTACTS, queued: CONTACTS, dropped: 0, refunded: 0, walked: 1 });
  assert.deepStrictEqual({ ...db.prepare('select count(*) as n from outbox').get() }, { n: 0 });
});

test('two worker processes on one PostgreSQL share a campaign: each contact one message, finished, billed once', { skip: skipWithoutServers, timeout: 300_000 }, async (t) => {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const cluster = await startCluster({ apis: 1, workers: [{}, {}], workerEnv: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } });
  t.after(() => cluster.stop());
  const [api] = cluster.apis;
  assert.ok(api);
  const contacts = 2_000;
  const account = await openAccountByAdmin(api, { messagesLeft: 10_000, rateLimitPerSecond: 100_000 });
  const list = await audienceOf(api, account.apiKey, contacts);
  const id = await startCampaign(api, account.apiKey, list);
  await waitFor(async () => (await statusOf(api, account.apiKey, id)) === 'finished', 'the campaign to finish', 240_000);
  const counts = await sql<{ messages: number; contacts: number }>`select count(*)::int as messages, count(distinct contact_id)::int as contacts from messages where campaign_id = ${id}`.execute(cluster.db);
  assert.deepStrictEqual(counts.rows[0], { messages: contacts, contacts });
  // Both runners made batches: the consent of each batch's sends came from the runner holding the lease in turn.
  const received = wire(sink);
  assert.equal(received.unique, contacts);
  assert.equal(await messagesLeftOf(api, account.id), 10_000 - contacts);
});
