// WhatsApp users' media fetched in the background from a Graph API stand-in on
// loopback: the metadata with the account's token, then the bytes; retried after a
// failure, refused past the size limit, checked against Meta's sha256.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { DEFAULT_INBOUND_MEDIA_OPTIONS, InboundMediaQueue, cloudApiMediaDeps } from '../../src/queue/inbound-media/inbound-media-queue.ts';
import { findInboundAttachment, insertInbound, insertInboundAttachment } from '../../src/store/inbound-messages.ts';
import { openAccount, startService } from '../support/service.ts';
import { startGraphMediaStandIn } from '../peers/graph-media.ts';

const TOKEN = 'EAAG-media-token';
const T0 = Date.UTC(2030, 0, 1);
const MEDIA_ID = '1479537139650973';
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');

/** An account's stored inbound image whose media waits `pending`, the stand-in holding `bytes`, and the queue over both. */
async function pendingImage(t: TestContext, bytes: Buffer, settings: { maxBytes?: number; declaredSize?: number | null; sha256?: string; publicOnly?: boolean } = {}) {
  const now = { value: T0 };
  const service = await startService(t, { clock: () => now.value });
  const account = await openAccount(service, { whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: TOKEN });
  const graph = await startGraphMediaStandIn(t, TOKEN);
  graph.media.set(MEDIA_ID, {
    bytes, mimeType: 'image/jpeg',
    ...(settings.declaredSize === undefined ? {} : { declaredSize: settings.declaredSize }), ...(settings.sha256 === undefined ? {} : { sha256: settings.sha256 }),
  });
  const db = service.store.db;
  const inboundId = service.deps.newId();
  const attachmentId = service.deps.newId();
  await insertInbound(db, {
    id: inboundId, accountId: account.id, channel: 'whatsapp', from: '+5215512345678', to: '106540352242922', text: null, content: { type: 'image' },
    keyword: null, replyTo: null, providerRef: 'wamid.image', receivedAt: T0, now: T0,
  });
  await insertInboundAttachment(db, { id: attachmentId, inboundId, accountId: account.id, filename: null, contentType: 'image/jpeg', mediaRef: MEDIA_ID, now: T0 });
  const queue = new InboundMediaQueue(
    {
      db, clock: () => now.value, capabilities: service.store.capabilities, logger: pino({ level: 'silent' }),
      ...cloudApiMediaDeps(db, { baseUrl: graph.baseUrl, maxBytes: settings.maxBytes ?? 1024 * 1024, allowPrivate: false, ...(settings.publicOnly === true ? {} : { allowAddress: (address: string) => address === '127.0.0.1' }), timeoutMs: 5000 }),
    },
    { ...DEFAULT_INBOUND_MEDIA_OPTIONS, owner: 'test-media' },
  );
  const row = () => db.selectFrom('inbound_attachments').select(['state', 'attempts', 'size', 'last_error', 'next_attempt_at', 'lease_owner']).where('id', '=', attachmentId).executeTakeFirstOrThrow()
    .then((r) => ({ ...r, attempts: Number(r.attempts), size: Number(r.size), next_attempt_at: Number(r.next_attempt_at) }));
  return { service, account, graph, queue, now, inboundId, attachmentId, row, origin: graph.baseUrl.replace('/v23.0', '') };
}

test('an image is fetched with the account\'s token, metadata then bytes, and stored with its size', async (t) => {
  const { service, account, graph, queue, inboundId, attachmentId, row } = await pendingImage(t, JPEG);

  assert.equal(await queue.drain(), 1);

  assert.deepStrictEqual(graph.requests, [
    { path: `/v23.0/${MEDIA_ID}`, authorization: `Bearer ${TOKEN}` },
    { path: `/media/${MEDIA_ID}?ext=1`, authorization: `Bearer ${TOKEN}` },
  ]);
  assert.deepStrictEqual(await row(), { state: 'stored', attempts: 1, size: JPEG.length, last_error: null, next_attempt_at: 0, lease_owner: null });
  assert.deepStrictEqual(await findInboundAttachment(service.store.db, account.id, inboundId, attachmentId), { filename: null, contentType: 'image/jpeg', content: JPEG, state: 'stored' });
});

test('a fetch Meta answers 503 is tried again a minute later, and then stored', async (t) => {
  const { graph, queue, now, row, origin } = await pendingImage(t, JPEG);
  graph.failNext(503);

  await queue.drain();
  assert.deepStrictEqual(await row(), {
    state: 'pending', attempts: 1, size: 0, last_error: `media ${MEDIA_ID}: HTTP 503 from ${origin}/v23.0/${MEDIA_ID}`, next_attempt_at: T0 + 60_000, lease_owner: null,
  });
  assert.equal(await queue.drain(), 0, 'not due before its minute');

  now.value = T0 + 60_000;
  assert.equal(await queue.drain(), 1);
  assert.deepStrictEqual(await row(), { state: 'stored', attempts: 2, size: JPEG.length, last_error: null, next_attempt_at: T0 + 60_000, lease_owner: null });
});

test('media Meta says is larger than the limit fails at once, its bytes never asked for', async (t) => {
  const { graph, queue, row } = await pendingImage(t, Buffer.alloc(2048, 1), { maxBytes: 1024 });

  await queue.drain();

  assert.deepStrictEqual(graph.requests.map((r) => r.path), [`/v23.0/${MEDIA_ID}`]);
  assert.deepStrictEqual(await row(), { state: 'failed', attempts: 1, size: 0, last_error: `media ${MEDIA_ID}: 2048 bytes, larger than the 1024 allowed`, next_attempt_at: 0, lease_owner: null });
});

test('media larger than the limit without a declared size fails once the bytes pass it', async (t) => {
  const { queue, row } = await pendingImage(t, Buffer.alloc(2048, 1), { maxBytes: 1024, declaredSize: null });

  await queue.drain();

  assert.deepStrictEqual(await row(), { state: 'failed', attempts: 1, size: 0, last_error: `media ${MEDIA_ID}: attachment larger than 1024 bytes`, next_attempt_at: 0, lease_owner: null });
});

test('bytes that do not match Meta\'s sha256 are not stored, and are tried again', async (t) => {
  const { queue, row } = await pendingImage(t, JPEG, { sha256: '0'.repeat(64) });

  await queue.drain();

  const { state, last_error: lastError } = await row();
  assert.deepStrictEqual([state, lastError], ['pending', `media ${MEDIA_ID}: the bytes do not match Meta's sha256`]);
});

test('after its last attempt a failing fetch ends failed with the last error', async (t) => {
  const { graph, queue, now, row, origin } = await pendingImage(t, JPEG);
  graph.failNext(503, 503, 503, 503, 503);

  for (const delay of [0, ...DEFAULT_INBOUND_MEDIA_OPTIONS.retryDelaysMs]) {
    now.value += delay;
    await queue.drain();
  }

  const { state, attempts, last_error: lastError } = await row();
  assert.deepStrictEqual({ state, attempts, lastError }, { state: 'failed', attempts: 5, lastError: `media ${MEDIA_ID}: HTTP 503 from ${origin}/v23.0/${MEDIA_ID}` });
});

test('a media URL at a private address is refused for good, while the Graph API root is the operator\'s to choose', async (t) => {
  const { graph, queue, row } = await pendingImage(t, JPEG, { publicOnly: true });

  await queue.drain();

  assert.deepStrictEqual(graph.requests.map((r) => r.path), [`/v23.0/${MEDIA_ID}`]);
  const { state, last_error: lastError } = await row();
  assert.deepStrictEqual([state, lastError], ['failed', `media ${MEDIA_ID}: refused to fetch 127.0.0.1: 127.0.0.1 is a private or reserved address`]);
});
