// GET /v1/messages/:msgid and what the capture transport rendered: the status and
// events of a delivered message, per-account isolation, to/cc/bcc fan-out, and
// header injection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Service } from '../../src/service.ts';
import { emailBody, get, openAccount, post, startService, UUID } from '../support/service.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The header block of a MIME message, unfolded, one header per entry. */
function headerLines(mime: string): string[] {
  const end = mime.search(/\r?\n\r?\n/);
  const head = end === -1 ? mime : mime.slice(0, end);
  return head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
}

async function rawOf(service: Service, apiKey: string, msgid: string): Promise<string> {
  const res = await get(service, `/v1/messages/${msgid}/raw`, apiKey);
  assert.equal(res.statusCode, 200);
  return res.body;
}

test('a delivered email reads back as sent, with its queued, sending and sent events in order', async (t) => {
  let now = Date.parse('2025-03-01T10:00:00.000Z');
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
  const msgid: string = res.json().to[0].msgid;
  now += 1500;
  await service.worker.drain();

  const view = await get(service, `/v1/messages/${msgid}`, account.apiKey);
  assert.equal(view.statusCode, 200);
  const body = view.json();
  assert.equal(body.events.length, 3);
  const sent = body.events[2];
  assert.match(String(sent.response), /^captured \d+ bytes$/);
  assert.deepStrictEqual(body, {
    msgid,
    channel: 'email',
    status: 'sent',
    recipient: 'ana@example.org',
    subject: 'Hello',
    sender: 'news@example.com',
    campaign: null,
    tag: null,
    metadata: null,
    created_at: '2025-03-01T10:00:00.000Z',
    source: 'api',
    events: [
      { type: 'queued', at: '2025-03-01T10:00:00.000Z' },
      { type: 'sending', at: '2025-03-01T10:00:01.500Z', attempt: 1 },
      { type: 'sent', at: '2025-03-01T10:00:01.500Z', attempt: 1, peer: 'capture', response: sent.response },
    ],
  });
});

test('a message stored before migration 0019 (its own `queued` and `sending` rows, an outcome without a claim time) reads back as it did, each step once', async (t) => {
  const now = Date.parse('2025-03-01T10:00:00.000Z');
  const service = await startService(t, { clock: () => now });
  const account = await openAccount(service);
  const msgid: string = (await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid;
  // What the code before 0019 wrote: the steps as rows, the outcome's sending_at left null.
  const db = service.store.db;
  await db.updateTable('messages').set({ status: 'sent' }).where('id', '=', msgid).execute();
  await db.deleteFrom('outbox').where('message_id', '=', msgid).execute();
  await db.insertInto('message_events').values([
    { id: `${msgid.slice(0, -1)}0`, message_id: msgid, type: 'queued', at: now, data: '{}' },
    { id: `${msgid.slice(0, -1)}1`, message_id: msgid, type: 'sending', at: now + 500, data: '{"attempt":1}' },
    { id: `${msgid.slice(0, -1)}2`, message_id: msgid, type: 'sent', at: now + 900, data: '{"attempt":1,"peer":"capture","response":"ok"}' },
  ]).execute();

  const view = await get(service, `/v1/messages/${msgid}`, account.apiKey);
  assert.deepStrictEqual(view.json().events, [
    { type: 'queued', at: '2025-03-01T10:00:00.000Z' },
    { type: 'sending', at: '2025-03-01T10:00:00.500Z', attempt: 1 },
    { type: 'sent', at: '2025-03-01T10:00:00.900Z', attempt: 1, peer: 'capture', response: 'ok' },
  ]);
});

test('a dropped recipient\'s message has no `queued` step, only its `dropped` event', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  assert.equal((await post(service, '/v1/suppressions', account.apiKey, { email: 'ana@example.org' })).statusCode, 200);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  const body = (await get(service, `/v1/messages/${res.json().to[0].msgid}`, account.apiKey)).json();
  assert.equal(body.status, 'dropped');
  assert.deepStrictEqual(body.events.map((e: { type: string }) => e.type), ['dropped']);
});

test('with the real clock the event times are ISO 8601 and in order', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  await service.worker.drain();
  const body = (await get(service, `/v1/messages/${res.json().to[0].msgid}`, account.apiKey)).json();
  assert.deepStrictEqual(body.events.map((e: { type: string }) => e.type), ['queued', 'sending', 'sent']);
  for (const e of body.events) assert.match(e.at, ISO);
  assert.match(body.created_at, ISO);
  assert.ok(Date.parse(body.events[0].at) <= Date.parse(body.events[1].at));
});

test('a message not yet delivered reads back as queued with one event', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  const body = (await get(service, `/v1/messages/${res.json().to[0].msgid}`, account.apiKey)).json();
  assert.equal(body.status, 'queued');
  assert.deepStrictEqual(body.events.map((e: { type: string }) => e.type), ['queued']);
});

test('another account\'s msgid gets 404 Not found', async (t) => {
  const service = await startService(t);
  const owner = await openAccount(service);
  const other = await openAccount(service);
  const res = await post(service, '/v1/email', owner.apiKey, emailBody());
  await service.worker.drain();
  const msgid = res.json().to[0].msgid;
  const view = await get(service, `/v1/messages/${msgid}`, other.apiKey);
  assert.equal(view.statusCode, 404);
  assert.deepStrictEqual(view.json(), { message: 'Not found' });
});

test('another account\'s msgid gets 404 Not found on the raw message too', async (t) => {
  const service = await startService(t);
  const owner = await openAccount(service);
  const other = await openAccount(service);
  const res = await post(service, '/v1/email', owner.apiKey, emailBody());
  await service.worker.drain();
  const raw = await get(service, `/v1/messages/${res.json().to[0].msgid}/raw`, other.apiKey);
  assert.equal(raw.statusCode, 404);
  assert.deepStrictEqual(raw.json(), { message: 'Not found' });
});

test('an unknown msgid gets 404 Not found', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const view = await get(service, '/v1/messages/00000000-0000-7000-8000-000000000000', account.apiKey);
  assert.equal(view.statusCode, 404);
  assert.deepStrictEqual(view.json(), { message: 'Not found' });
});

test('reading a message without a key gets 403 No API Key sent', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: '/v1/messages/anything' });
  assert.equal(res.statusCode, 403);
  assert.deepStrictEqual(res.json(), { error: 'No API Key sent' });
});

const FAN_OUT = emailBody({
  to: [{ email: 'ana@example.org' }, { email: 'bob@example.org' }],
  options: { cc: [{ email: 'carl@example.org' }], bcc: [{ email: 'bea@example.org' }] },
});

test('an email to to, cc and bcc lists every recipient, to then cc then bcc, each with its own msgid', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, FAN_OUT);
  assert.equal(res.statusCode, 200);
  const body = res.json();
  const msgids: string[] = body.to.map((r: { msgid: string }) => r.msgid);
  for (const id of msgids) assert.match(id, UUID);
  assert.equal(new Set(msgids).size, 4);
  assert.deepStrictEqual(body, {
    message: 'Email queued for delivery',
    to: [
      { email: 'ana@example.org', msgid: msgids[0] },
      { email: 'bob@example.org', msgid: msgids[1] },
      { email: 'carl@example.org', msgid: msgids[2] },
      { email: 'bea@example.org', msgid: msgids[3] },
    ],
  });
});

test('the bcc copy of an email carries no Bcc header and does not name the bcc recipient', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, FAN_OUT);
  await service.worker.drain();
  const bccMsgid = res.json().to[3].msgid;
  const mime = await rawOf(service, account.apiKey, bccMsgid);
  const headers = headerLines(mime);
  assert.equal(headers.filter((h) => /^bcc:/i.test(h)).length, 0);
  assert.ok(!headers.join('\n').includes('bea@example.org'));
  assert.ok(headers.some((h) => h.startsWith('Message-ID: <' + bccMsgid + '@')), 'the copy carries its own msgid');
});

test('every copy of an email shows the same To and Cc headers and no Bcc', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, FAN_OUT);
  await service.worker.drain();
  for (const { msgid } of res.json().to as { msgid: string }[]) {
    const headers = headerLines(await rawOf(service, account.apiKey, msgid));
    assert.deepStrictEqual(headers.filter((h) => /^to:/i.test(h)), ['To: ana@example.org, bob@example.org']);
    assert.deepStrictEqual(headers.filter((h) => /^cc:/i.test(h)), ['Cc: carl@example.org']);
    assert.equal(headers.filter((h) => /^bcc:/i.test(h)).length, 0);
  }
});

test('each recipient of a fan-out is its own message with its own status', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, FAN_OUT);
  await service.worker.drain();
  for (const { email, msgid } of res.json().to as { email: string; msgid: string }[]) {
    const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
    assert.equal(view.recipient, email);
    assert.equal(view.status, 'sent');
  }
});

const INJECTIONS: readonly [string, Record<string, unknown>][] = [
  ['a subject (CRLF)', { subject: 'Hi\r\nBcc: evil@example.net' }],
  ['a subject (bare LF)', { subject: 'Hi\nBcc: evil@example.net' }],
  ['a subject (bare CR)', { subject: 'Hi\rBcc: evil@example.net' }],
  ['a from name', { from: { email: 'news@example.com', name: 'News\r\nBcc: evil@example.net' } }],
  ['a replyTo name', { replyTo: { email: 'help@example.com', name: 'Help\r\nBcc: evil@example.net' } }],
  ['an attachment filename', { attachments: [{ filename: 'a.txt\r\nBcc: evil@example.net', path: 'data:text/plain;base64,aGk=' }] }],
];

for (const [where, overrides] of INJECTIONS) {
  test(`a line break in ${where} cannot add a Bcc header to the message`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const res = await post(service, '/v1/email', account.apiKey, emailBody(overrides));
    assert.equal(res.statusCode, 200);
    await service.worker.drain();
    const mime = await rawOf(service, account.apiKey, res.json().to[0].msgid);
    assert.equal(mime.split(/\r\n|\r|\n/).filter((line) => /^bcc:/i.test(line)).length, 0, mime);
    const view = (await get(service, `/v1/messages/${res.json().to[0].msgid}`, account.apiKey)).json();
    assert.equal(view.status, 'sent');
  });
}

test('a recipient address carrying CR/LF is refused as wrong structure', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'ana@example.org\r\nBcc: evil@example.net' }] }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), {
    message: 'The recipient address has the wrong structure!',
    error: [{ email: 'ana@example.org\r\nBcc: evil@example.net' }],
  });
});

test('over a real socket an email is accepted and its message can be read back', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  await service.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = service.http.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const sent = await fetch(`${base}/v1/email`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${account.apiKey}` }, body: JSON.stringify(emailBody()),
  });
  assert.equal(sent.status, 200);
  const { to } = (await sent.json()) as { to: { msgid: string }[] };
  await service.worker.drain();
  const view = await fetch(`${base}/v1/messages/${to[0]?.msgid}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
  assert.equal(view.status, 200);
  assert.equal(((await view.json()) as { status: string }).status, 'sent');
  const denied = await fetch(`${base}/v1/email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(denied.status, 403);
  assert.deepStrictEqual(await denied.json(), { error: 'No API Key sent' });
});
