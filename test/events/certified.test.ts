// Certified delivery through the whole service: a send with "certified": true goes to a
// real SMTP peer on loopback (relay mode) or to the capture transport; its receipt is
// read over HTTP and verified offline with the JWKS the service publishes.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { Service } from '../../src/service.ts';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';
import { emailBody, get, openAccount, post, startService, type TestAccount } from '../support/service.ts';
import { verpOf } from '../support/verp.ts';

const START = Date.UTC(2026, 2, 2, 9, 30, 0);
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function relayService(t: TestContext): Promise<{ service: Service; sink: SmtpSink; account: TestAccount }> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const service = await startService(t, { clock: () => START, env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } });
  return { service, sink, account: await openAccount(service) };
}

async function send(service: Service, account: TestAccount, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ certified: true, ...overrides }));
  assert.equal(res.statusCode, 200, res.body);
  await service.worker.drain();
  return res.json().to[0].msgid as string;
}

async function publishedJwks(service: Service): Promise<JSONWebKeySet> {
  // No Authorization header: the key is public.
  const res = await service.http.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  assert.equal(res.statusCode, 200);
  return res.json() as JSONWebKeySet;
}

test('a certified email relayed to an SMTP peer has a receipt that verifies offline with the published JWKS', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account);

  const certificate = (await get(service, `/v1/email/${msgid}/certificate`, account.apiKey)).json();
  const { payload, protectedHeader } = await compactVerify(certificate.receipt, createLocalJWKSet(await publishedJwks(service)));
  assert.deepStrictEqual(JSON.parse(new TextDecoder().decode(payload)), certificate.evidence);
  assert.deepStrictEqual([protectedHeader.alg, protectedHeader.typ, typeof protectedHeader.kid], ['EdDSA', 'herald-delivery-receipt+jws', 'string']);
});

test('the receipt certifies the SHA-256 of exactly the bytes the SMTP peer received, and the .eml is those bytes', async (t) => {
  const { service, sink, account } = await relayService(t);
  const msgid = await send(service, account);

  const received = sink.messages[0]?.raw;
  assert.ok(received);
  const { evidence } = (await get(service, `/v1/email/${msgid}/certificate`, account.apiKey)).json();
  assert.equal(evidence.sha256, sha256(received));
  const eml = await get(service, `/v1/email/${msgid}/certificate.eml`, account.apiKey);
  assert.equal(eml.headers['content-type'], 'message/rfc822');
  assert.ok(eml.rawPayload.equals(received));
});

test('the receipt names the relay, its address, the session transcript with the 250 reply to DATA, and the times', async (t) => {
  const { service, sink, account } = await relayService(t);
  const msgid = await send(service, account);

  const { evidence } = (await get(service, `/v1/email/${msgid}/certificate`, account.apiKey)).json();
  const at = new Date(START).toISOString();
  assert.deepStrictEqual(
    [evidence.msgid, evidence.account, evidence.from, evidence.recipient, evidence.subject, evidence.delivery, evidence.mx_host, evidence.mx_ip],
    [msgid, account.id, 'news@example.com', 'ana@example.org', 'Hello', 'relay', '127.0.0.1', '127.0.0.1'],
  );
  assert.deepStrictEqual([evidence.smtp_response, evidence.queue_id], ['250 OK: message queued', null]);
  assert.deepStrictEqual([evidence.connected_at, evidence.accepted_at, evidence.issued_at, evidence.issuer], [at, at, at, service.deps.publicUrl]);
  assert.match(evidence.smtp_transcript[0], new RegExp(`^\\* connected to 127\\.0\\.0\\.1 port ${sink.port}$`));
  assert.ok(evidence.smtp_transcript.includes(`C: MAIL FROM:<${verpOf(service, msgid)}>`));
  assert.ok(evidence.smtp_transcript.includes('C: RCPT TO:<ana@example.org>'));
  assert.equal(evidence.smtp_transcript.at(-1), 'S: 250 OK: message queued');
});

test('a certified message goes over an SMTP connection of its own, not the pooled one', async (t) => {
  const { service, sink, account } = await relayService(t);
  await send(service, account, { certified: false });
  await send(service, account);
  await send(service, account, { certified: false });

  // The pool's connection carries the first and the third; the certified one had its own.
  assert.deepStrictEqual(sink.messages.map((m) => m.connection), [1, 2, 1]);
});

test('the email.certified event fires after the delivery event, carrying the certificate URL', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account);

  const { events } = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.deepStrictEqual(events.slice(-2).map((e: { type: string }) => e.type), ['sent', 'certified']);
  assert.equal(events.at(-1).certificate_url, `${service.deps.publicUrl}/v1/email/${msgid}/certificate`);
});

test('a message sent without certified has no certificate and no certified event', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account, { certified: false });

  const certificate = await get(service, `/v1/email/${msgid}/certificate`, account.apiKey);
  assert.deepStrictEqual([certificate.statusCode, certificate.json()], [404, { message: 'Not found' }]);
  assert.equal((await get(service, `/v1/email/${msgid}/certificate.eml`, account.apiKey)).statusCode, 404);
  const { events } = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.deepStrictEqual(events.map((e: { type: string }) => e.type), ['queued', 'sending', 'sent']);
});

test("another account gets 404 for a message's certificate and its .eml", async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account);
  const other = await openAccount(service, { name: 'other' });

  const certificate = await get(service, `/v1/email/${msgid}/certificate`, other.apiKey);
  assert.deepStrictEqual([certificate.statusCode, certificate.json()], [404, { message: 'Not found' }]);
  const eml = await get(service, `/v1/email/${msgid}/certificate.eml`, other.apiKey);
  assert.deepStrictEqual([eml.statusCode, eml.json()], [404, { message: 'Not found' }]);
});

test('the certificate needs an API key; the JWKS does not', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account);

  const anonymous = await service.http.inject({ method: 'GET', url: `/v1/email/${msgid}/certificate` });
  assert.deepStrictEqual([anonymous.statusCode, anonymous.json()], [403, { error: 'No API Key sent' }]);
  const jwks = await publishedJwks(service);
  assert.deepStrictEqual(jwks.keys.map((k) => [k.kty, k.crv, k.alg, k.use, 'd' in k]), [['OKP', 'Ed25519', 'EdDSA', 'sig', false]]);
});

test('a browser asking for text/html gets a page where a subject with <script> is escaped', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account, { subject: '<script>alert("x")</script> & more' });

  const page = await service.http.inject({
    method: 'GET', url: `/v1/email/${msgid}/certificate`,
    headers: { authorization: `Bearer ${account.apiKey}`, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
  });
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.ok(page.body.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more'));
  assert.ok(!page.body.includes('<script'));
});

test('?format=html gives the page too, and a client asking for anything gets JSON', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account);

  const page = await get(service, `/v1/email/${msgid}/certificate?format=html`, account.apiKey);
  assert.match(page.body, /^<!doctype html>/);
  // Never framed, no script, and only its own style element (by the hash of its text).
  const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)?.[1] ?? '';
  const hash = createHash('sha256').update(style).digest('base64');
  assert.equal(page.headers['content-security-policy'], `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`);
  const json = await service.http.inject({ method: 'GET', url: `/v1/email/${msgid}/certificate`, headers: { authorization: `Bearer ${account.apiKey}`, accept: '*/*' } });
  assert.equal(json.json().msgid, msgid);
});

test('the certificate JSON links the JWKS and the .eml', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account);

  const body = (await get(service, `/v1/email/${msgid}/certificate`, account.apiKey)).json();
  assert.deepStrictEqual([body.msgid, body.jwks_url, body.eml_url], [
    msgid, `${service.deps.publicUrl}/.well-known/jwks.json`, `${service.deps.publicUrl}/v1/email/${msgid}/certificate.eml`,
  ]);
});

test('with the capture transport the certificate certifies the composed message only: no host, no address, no transcript', async (t) => {
  const service = await startService(t, { clock: () => START });
  const account = await openAccount(service);
  const msgid = await send(service, account);

  const { evidence } = (await get(service, `/v1/email/${msgid}/certificate`, account.apiKey)).json();
  const captured = await get(service, `/v1/messages/${msgid}/raw`, account.apiKey);
  assert.deepStrictEqual(
    [evidence.delivery, evidence.mx_host, evidence.mx_ip, evidence.smtp_transcript, evidence.smtp_response, evidence.connected_at, evidence.sha256],
    ['capture', null, null, [], null, null, sha256(captured.rawPayload)],
  );
});

test('every process of an installation signs with the one key stored in the database', async (t) => {
  const { service, account } = await relayService(t);
  const msgid = await send(service, account);
  const { receipt } = (await get(service, `/v1/email/${msgid}/certificate`, account.apiKey)).json();
  const stored = await service.deps.db.selectFrom('settings').select('value').where('key', '=', 'certificate_signing_key').executeTakeFirstOrThrow();
  const kid = JSON.parse(stored.value).kid as string;

  assert.equal((await publishedJwks(service)).keys[0]?.kid, kid);
  assert.equal(JSON.parse(Buffer.from(receipt.split('.')[0], 'base64url').toString()).kid, kid);
});

test('a certified message is delivered untracked: no open pixel, its links as written', async (t) => {
  const { service, sink, account } = await relayService(t);
  const body = '<p>Read <a href="https://example.com/terms">the terms</a></p>';
  await send(service, account, { body });
  await send(service, account, { body, certified: false });

  const [certified, tracked] = sink.messages.map((m) => m.raw.toString());
  assert.ok(certified?.includes('<a href="https://example.com/terms">'));
  assert.ok(!certified?.includes(`${service.deps.publicUrl}/t/`));
  // The same send without certified is tracked (the account's default), so the check above can fail.
  assert.ok(tracked?.includes(`${service.deps.publicUrl}/t/`));
});
