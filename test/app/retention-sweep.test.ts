// HERALD_RETENTION_DAYS: a send older than the retention period loses its content (body,
// captured MIME, event details, finished webhook deliveries) and keeps what counts or
// proves (status, event types and times, certificates, ledger), in batches that go on
// from where the last one stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { purgeBatch, purgeInboundBatch, sweep, type RetentionOptions } from '../../src/app/retention-sweep.ts';
import { receiveInbound } from '../../src/app/receive-inbound.ts';
import { emailBody, get, openAccount, post, startService } from '../support/service.ts';
import { eventsOf, sendAndDeliver, sentMail, trackingWorld, visit, type TrackingWorld } from '../support/sent-mail.ts';
import { startWebhookReceiver, subscribe } from '../peers/webhook-receiver.ts';

const DAY = 86_400_000;
const THIRTY_DAYS: Pick<RetentionOptions, 'days' | 'batchSize' | 'batchMessages'> = { days: 30, batchSize: 200, batchMessages: 2000 };
const PURGED = { message: 'The content of this message was purged after the retention period' };

const depsOf = (world: TrackingWorld) => ({ db: world.service.deps.db, commit: world.service.deps.commit, clock: world.service.deps.clock, logger: pino({ level: 'silent' }) });

async function openedOnce(world: TrackingWorld, msgid: string): Promise<void> {
  const { pixel } = await sentMail(world, msgid);
  assert.ok(pixel !== undefined);
  assert.equal((await visit(world, 'GET', pixel)).statusCode, 200);
}

test('a send older than the retention period loses its body and captured MIME: raw and preview answer 410', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  world.clock.now += 31 * DAY;

  // One event rewritten: `sent` (its attempt, peer and response); `queued` and `sending` are no rows of their own (store/message-timeline.ts).
  assert.deepStrictEqual(await sweep(depsOf(world), THIRTY_DAYS), { sends: 1, stillQueued: 0, captures: 1, pieces: 1, events: 1, webhookDeliveries: 0 });

  for (const path of [`/v1/messages/${msgid}/raw`, `/v1/messages/${msgid}/preview`]) {
    const res = await get(world.service, path, world.account.apiKey);
    assert.deepStrictEqual([res.statusCode, res.json()], [410, PURGED], path);
  }
});

test('a purged message loses its subject and keeps its sender', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  world.clock.now += 31 * DAY;

  await sweep(depsOf(world), THIRTY_DAYS);

  const res = await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey);
  assert.deepStrictEqual({ subject: res.json().subject, sender: res.json().sender }, { subject: null, sender: 'news@example.com' });
});

test('a purged message keeps its status and each event\'s type and time; an open keeps whether a machine made it, not the reader\'s address', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world, { tracking: { opens: true } });
  await openedOnce(world, msgid);
  const before = await eventsOf(world, msgid);
  world.clock.now += 31 * DAY;

  await sweep(depsOf(world), THIRTY_DAYS);

  const res = await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey);
  assert.equal(res.json().status, 'sent');
  assert.deepStrictEqual(res.json().events, before.map((event) => ({
    type: event['type'], at: event['at'], ...(event['machine'] === undefined ? {} : { machine: event['machine'] }),
  })));
  assert.ok(before.some((event) => event['type'] === 'opened' && event['ip'] !== undefined), 'the open had its reader\'s address before');
});

test('the unsubscribe link of a purged message still works and names its sender', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world);
  const { unsubscribe } = await sentMail(world, msgid);
  world.clock.now += 31 * DAY;

  await sweep(depsOf(world), THIRTY_DAYS);

  const res = await visit(world, 'GET', unsubscribe);
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /<p>Stop all email from Example News to <strong>ana@example\.org<\/strong>\?<\/p>/);
});

test('a send younger than the retention period keeps everything', async (t) => {
  const world = await trackingWorld(t);
  const old = await sendAndDeliver(world);
  world.clock.now += 20 * DAY;
  const recent = await sendAndDeliver(world);
  world.clock.now += 11 * DAY;

  assert.equal((await sweep(depsOf(world), THIRTY_DAYS)).sends, 1);

  assert.equal((await get(world.service, `/v1/messages/${old}/raw`, world.account.apiKey)).statusCode, 410);
  const kept = await get(world.service, `/v1/messages/${recent}/raw`, world.account.apiKey);
  assert.equal(kept.statusCode, 200);
  assert.match(kept.body, /^Subject: Hello\r$/m);
});

test('a message still in the outbox keeps its content, and is delivered whole afterwards', async (t) => {
  const world = await trackingWorld(t);
  const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody());
  const msgid: string = res.json().to[0].msgid;
  world.clock.now += 31 * DAY;

  assert.deepStrictEqual(await sweep(depsOf(world), THIRTY_DAYS), { sends: 0, stillQueued: 1, captures: 0, pieces: 0, events: 0, webhookDeliveries: 0 });
  await world.service.worker.drain();

  const raw = await get(world.service, `/v1/messages/${msgid}/raw`, world.account.apiKey);
  assert.equal(raw.statusCode, 200);
  assert.match(raw.body, /<p>Hi there<\/p>/);
});

test('a certified message\'s certificate and .eml stay, byte for byte', async (t) => {
  const world = await trackingWorld(t);
  const msgid = await sendAndDeliver(world, { certified: true });
  const path = `/v1/email/${msgid}/certificate.eml`;
  const before = await get(world.service, path, world.account.apiKey);
  assert.equal(before.statusCode, 200);
  world.clock.now += 31 * DAY;

  const counts = await sweep(depsOf(world), THIRTY_DAYS);

  assert.equal(counts.pieces, 0);
  const after = await get(world.service, path, world.account.apiKey);
  assert.deepStrictEqual([after.statusCode, after.rawPayload.equals(before.rawPayload)], [200, true]);
});

test('finished webhook deliveries of a purged send are removed, with their attempts', async (t) => {
  // On the real clock: the receiver refuses signatures from the future of a moved clock.
  const service = await startService(t);
  const account = await openAccount(service);
  const receiver = await startWebhookReceiver(t);
  await subscribe(service, account.apiKey, receiver);
  assert.equal((await post(service, '/v1/email', account.apiKey, emailBody())).statusCode, 200);
  await service.worker.drain();
  await service.webhooks.drain();
  const statuses = async (): Promise<string[]> => (await get(service, '/v1/webhooks/deliveries', account.apiKey)).json().data.map((d: { status: string }) => d.status);
  assert.deepStrictEqual(await statuses(), ['succeeded']);
  const later = { db: service.deps.db, commit: service.deps.commit, clock: () => Date.now() + 31 * DAY, logger: pino({ level: 'silent' }) };

  const counts = await sweep(later, THIRTY_DAYS);

  assert.equal(counts.webhookDeliveries, 1);
  assert.deepStrictEqual(await statuses(), []);
});

test('the ledger is kept: the account\'s balance and entries are those of before the purge', async (t) => {
  const world = await trackingWorld(t);
  await sendAndDeliver(world);
  const ledger = async () => (await get(world.service, '/v1/ledger', world.account.apiKey)).json();
  const before = await ledger();
  world.clock.now += 31 * DAY;

  await sweep(depsOf(world), THIRTY_DAYS);

  assert.deepStrictEqual(await ledger(), before);
});

test('each batch purges at most its size and the next goes on from where it stopped', async (t) => {
  const world = await trackingWorld(t);
  for (let i = 0; i < 3; i++) await sendAndDeliver(world);
  world.clock.now += 31 * DAY;
  const options = { days: 30, batchSize: 2, batchMessages: 2000 };

  assert.deepStrictEqual([
    (await purgeBatch(depsOf(world), options)).sends,
    (await purgeBatch(depsOf(world), options)).sends,
    (await purgeBatch(depsOf(world), options)).sends,
  ], [2, 1, 0]);
});

test('a batch holds at most its messages: a send to three recipients fills a batch of four on its own', async (t) => {
  const world = await trackingWorld(t);
  const three = [{ email: 'ana@example.org' }, { email: 'bo@example.org' }, { email: 'cy@example.org' }];
  for (let i = 0; i < 2; i++) await sendAndDeliver(world, { to: three });
  world.clock.now += 31 * DAY;
  const options = { days: 30, batchSize: 200, batchMessages: 4 };

  assert.deepStrictEqual([
    (await purgeBatch(depsOf(world), options)).sends,
    (await purgeBatch(depsOf(world), options)).sends,
    (await purgeBatch(depsOf(world), options)).sends,
  ], [1, 1, 0]);
});

test('a send larger than a batch\'s messages is still purged, alone', async (t) => {
  const world = await trackingWorld(t);
  await sendAndDeliver(world, { to: [{ email: 'ana@example.org' }, { email: 'bo@example.org' }, { email: 'cy@example.org' }] });
  world.clock.now += 31 * DAY;

  assert.equal((await purgeBatch(depsOf(world), { days: 30, batchSize: 200, batchMessages: 2 })).sends, 1);
});

test('what people sent older than the retention period loses its text, fields and files, and keeps who wrote and when', async (t) => {
  const world = await trackingWorld(t);
  const deps = world.service.deps;
  const arriving = { channel: 'email' as const, to: 'support@example.com', accountId: world.account.id, content: { subject: 'My order' } };
  const old = await receiveInbound(deps, { ...arriving, from: 'ana@example.org', text: 'Where is it?', receivedAt: deps.clock(), attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hi') }] });
  world.clock.now += 31 * DAY;
  const young = await receiveInbound(deps, { ...arriving, from: 'bo@example.org', text: 'Thanks!', receivedAt: deps.clock() });

  assert.deepStrictEqual(await purgeInboundBatch(depsOf(world), THIRTY_DAYS), { messages: 1, attachments: 1 });
  assert.deepStrictEqual(await purgeInboundBatch(depsOf(world), THIRTY_DAYS), { messages: 0, attachments: 0 });
  const purged = (await get(world.service, `/v1/inbound/${old.id}`, world.account.apiKey)).json();
  assert.deepStrictEqual([purged.from, purged.text, purged.subject, purged.purged, purged.attachments], ['ana@example.org', null, undefined, true, undefined]);
  const kept = (await get(world.service, `/v1/inbound/${young.id}`, world.account.apiKey)).json();
  assert.deepStrictEqual([kept.text, kept.subject], ['Thanks!', 'My order']);
});
