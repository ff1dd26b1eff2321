// Storage of stored messages (captures, certified .eml) as layouts over pieces their
// send keeps once, through a real service on SQLite (and on PostgreSQL under
// test/run-postgres.ts): linear in the recipients, and read back byte for byte.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import type { Service } from '../../src/service.ts';
import { findCertificate, insertCertificate } from '../../src/store/certificates.ts';
import { findCapture, putCapture } from '../../src/store/messages.ts';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { emailBody, get, openAccount, post, startService, type TestAccount } from '../support/service.ts';

const START = Date.UTC(2026, 2, 2, 9, 30, 0);

async function sendTo(service: Service, account: TestAccount, recipients: number, overrides: Record<string, unknown> = {}): Promise<string[]> {
  const to = Array.from({ length: recipients }, (_, i) => ({ email: `reader${i}@example${i % 7}.org` }));
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ to, ...overrides }));
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().to as { msgid: string }[]).map((m) => m.msgid);
}

/** Characters stored for captures: their own rows and the pieces their sends keep. */
async function storedCharacters(service: Service): Promise<{ captures: number; pieces: number; pieceRows: number }> {
  const { rows: [captures] } = await sql<{ n: number }>`select coalesce(sum(length(body) + coalesce(length(layout), 0)), 0) as n from captures`.execute(service.deps.db);
  const { rows: [pieces] } = await sql<{ n: number; rows: number }>`select coalesce(sum(length(body)), 0) as n, count(*) as rows from mime_pieces`.execute(service.deps.db);
  return { captures: Number(captures?.n), pieces: Number(pieces?.n), pieceRows: Number(pieces?.rows) };
}

/** A message a test can store texts under: one accepted send, not delivered. */
async function oneMessage(t: TestContext): Promise<{ service: Service; msgid: string }> {
  const service = await startService(t, { clock: () => START });
  const account = await openAccount(service);
  const [msgid = ''] = await sendTo(service, account, 1);
  return { service, msgid };
}

/** nodemailer's rendering of a multipart message with a long To header and an attachment. */
async function renderedMessage(): Promise<string> {
  const renderer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const info = await renderer.sendMail({
    from: 'news@example.com',
    to: Array.from({ length: 200 }, (_, i) => `reader${i}@example.org`),
    subject: 'Report',
    text: `Dear reader,\r\n-- \r\nsigned\r\n${'line of text '.repeat(200)}`,
    html: `<p>${'Ána Ñuñez € '.repeat(150)}</p>`,
    attachments: [{ filename: 'report.csv', content: 'a,b\r\n'.repeat(2000) }],
  });
  return (info.message as Buffer).toString('utf8');
}

// The default recipient limit (HERALD_MAX_EMAIL_RECIPIENTS): the largest send a client can make.
const MOST_RECIPIENTS = 2000;
const DELIVERED_COPIES = 25;

test('the copies of an email to the most recipients allowed keep their To header once: each copy stores under 2,000 characters of its own', async (t) => {
  const service = await startService(t, { clock: () => START });
  const account = await openAccount(service, { messagesLeft: MOST_RECIPIENTS });
  const msgids = await sendTo(service, account, MOST_RECIPIENTS);
  // Composing a copy takes time linear in its To header: a sample is delivered, the
  // rest left due later. Every copy is stored the same way, so the sample shows the growth per copy.
  await service.deps.db.updateTable('outbox').set({ available_at: START + 86_400_000 }).where('message_id', 'not in', msgids.slice(0, DELIVERED_COPIES)).execute();
  await service.worker.drain();
  const one = await findCapture(service.deps.db, msgids[0] ?? '');
  const stored = await storedCharacters(service);
  // One copy carries the 2,000 addresses of its To header (about 52,000 characters); stored whole, each copy took that again.
  assert.ok((one?.body.length ?? 0) > 50_000, `one copy is ${one?.body.length} characters`);
  assert.equal(stored.pieceRows, 1);
  assert.ok(stored.pieces < (one?.body.length ?? 0), `the send's pieces take ${stored.pieces} characters`);
  assert.ok(stored.captures < DELIVERED_COPIES * 2000, `the ${DELIVERED_COPIES} copies' own rows take ${stored.captures} characters`);
});

test('every copy of an email to many recipients reads back whole, with its own Message-ID and the shared To header', async (t) => {
  const service = await startService(t, { clock: () => START });
  const account = await openAccount(service);
  const msgids = await sendTo(service, account, 60);
  await service.worker.drain();
  const raws = await Promise.all(msgids.map(async (msgid) => (await get(service, `/v1/messages/${msgid}/raw`, account.apiKey)).body));
  const toHeaders = new Set(raws.map((raw) => /\r\nTo: ([^]*?)\r\n(?![ \t])/.exec(raw)?.[1]));
  assert.equal(toHeaders.size, 1);
  assert.deepStrictEqual(raws.map((raw, i) => raw.includes(`Message-ID: <${msgids[i]}@`)), msgids.map(() => true));
});

test('a capture with shared pieces reads back byte for byte as it was put', async (t) => {
  const { service, msgid } = await oneMessage(t);
  const text = await renderedMessage();
  await putCapture(service.deps.db, { messageId: msgid, contentType: 'message/rfc822', body: text, at: START });
  assert.equal((await findCapture(service.deps.db, msgid))?.body, text);
  assert.ok((await storedCharacters(service)).pieceRows >= 3);
});

test('a capture that fools the cut (body lines starting with "--", no final line break) reads back byte for byte', async (t) => {
  const { service, msgid } = await oneMessage(t);
  const text = `Subject: x\r\n\r\n${'-- not a boundary\r\n'.repeat(100)}${'x'.repeat(3000)}\n--\rtail--`;
  await putCapture(service.deps.db, { messageId: msgid, contentType: 'message/rfc822', body: text, at: START });
  assert.equal((await findCapture(service.deps.db, msgid))?.body, text);
});

test('a capture put again (a retried delivery) replaces the first and reads back as the second', async (t) => {
  const { service, msgid } = await oneMessage(t);
  const text = await renderedMessage();
  await putCapture(service.deps.db, { messageId: msgid, contentType: 'message/rfc822', body: text, at: START });
  await putCapture(service.deps.db, { messageId: msgid, contentType: 'message/rfc822', body: `${text}X`, at: START });
  assert.equal((await findCapture(service.deps.db, msgid))?.body, `${text}X`);
});

test('a capture short enough to share nothing is kept whole in its row', async (t) => {
  const { service, msgid } = await oneMessage(t);
  await putCapture(service.deps.db, { messageId: msgid, contentType: 'application/json', body: '{"text":"hi"}', at: START });
  const row = await service.deps.db.selectFrom('captures').select(['body', 'layout']).where('message_id', '=', msgid).executeTakeFirst();
  assert.deepStrictEqual({ ...row }, { body: '{"text":"hi"}', layout: null });
});

test('a capture stored whole before migration 0006 is served by the raw route as it was', async (t) => {
  const service = await startService(t, { clock: () => START });
  const account = await openAccount(service);
  const [msgid = ''] = await sendTo(service, account, 1);
  const text = await renderedMessage();
  await service.deps.db.insertInto('captures').values({ message_id: msgid, content_type: 'message/rfc822', body: text, layout: null, created_at: START }).execute();
  const raw = await get(service, `/v1/messages/${msgid}/raw`, account.apiKey);
  assert.equal(raw.statusCode, 200);
  assert.equal(raw.body, text);
});

test('a certified .eml with non-UTF-8 bytes (one character per byte) reads back byte for byte from its pieces', async (t) => {
  const { service, msgid } = await oneMessage(t);
  const account = (await service.deps.db.selectFrom('messages').select('account_id').where('id', '=', msgid).executeTakeFirstOrThrow()).account_id;
  const eml = Buffer.concat([Buffer.from(await renderedMessage()), Buffer.from([0xe9, 0xff, 0x0d, 0x0a])]).toString('latin1');
  await insertCertificate(service.deps.db, { messageId: msgid, accountId: account, receipt: 'a.b.c', eml, createdAt: START });
  assert.equal((await findCertificate(service.deps.db, account, msgid))?.eml, eml);
});

test('the certified .eml of each copy of an email to 100 recipients is the bytes its SMTP peer received, the shared pieces kept once', async (t) => {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const service = await startService(t, { clock: () => START, env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } });
  const account = await openAccount(service);
  const msgids = await sendTo(service, account, 100, { certified: true });
  await service.worker.drain();
  const received = new Map(sink.messages.map((m) => [m.rcptTo[0], m.raw.toString('latin1')]));
  const emls = await Promise.all(msgids.map(async (msgid, i) => [`reader${i}@example${i % 7}.org`, (await get(service, `/v1/email/${msgid}/certificate.eml`, account.apiKey)).rawPayload.toString('latin1')] as const));
  assert.deepStrictEqual(emls.filter(([recipient, eml]) => received.get(recipient) !== eml).map(([recipient]) => recipient), []);
  const { rows: [pieces] } = await sql<{ rows: number }>`select count(*) as rows from mime_pieces`.execute(service.deps.db);
  assert.equal(Number(pieces?.rows), 1);
});
