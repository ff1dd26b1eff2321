// The Cloud API transport against an HTTP stand-in on loopback: the exact request,
// and what each kind of answer becomes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { cloudApiTransport } from '../../../src/channels/whatsapp/cloud-api-transport.ts';
import type { Outbound, WhatsappPayload } from '../../../src/domain/outbound.ts';
import { metaErrorBody, startCloudApiStandIn } from '../../peers/whatsapp-cloud-api.ts';

const TOKEN = 'EAAG-test-token-0123456789';
const CREDENTIALS = { phoneNumberId: '106540352242922', accessToken: TOKEN };

function template(overrides: Partial<Outbound<WhatsappPayload>> = {}): Outbound<WhatsappPayload> {
  return {
    msgid: '01900000-0000-7000-8000-000000000001', accountId: 'account-1', attempt: 1, recipient: '5215512345678',
    payload: { kind: 'template', templateName: 'otp_code', language: 'en', params: ['Ana', '1234'], renderedBody: 'Hi Ana, your code is 1234' },
    ...overrides,
  };
}

const signal = (): AbortSignal => new AbortController().signal;

test('a template message is POSTed to /{phone-number-id}/messages with the bearer token and the exact body', async (t) => {
  const peer = await startCloudApiStandIn(t);
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  await transport.send(template(), signal());

  assert.equal(peer.requests.length, 1);
  const [request] = peer.requests;
  assert.equal(request?.method, 'POST');
  assert.equal(request?.path, '/v23.0/106540352242922/messages');
  assert.equal(request?.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(request?.headers['content-type'], 'application/json');
  assert.deepStrictEqual(request?.json, {
    messaging_product: 'whatsapp', recipient_type: 'individual', to: '5215512345678', type: 'template',
    template: { name: 'otp_code', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: '1234' }] }] },
  });
});

test('a 200 with a message id is accepted, with the wamid as providerRef', async (t) => {
  const peer = await startCloudApiStandIn(t);
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: new URL(peer.baseUrl).host, response: 'HTTP 200 wamid.1', providerRef: 'wamid.1' });
});

test('a session message is sent as type text with the body as given', async (t) => {
  const peer = await startCloudApiStandIn(t);
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  await transport.send(template({ payload: { kind: 'text', text: 'Your order shipped  🚚' } }), signal());

  assert.deepStrictEqual(peer.requests[0]?.json, {
    messaging_product: 'whatsapp', recipient_type: 'individual', to: '5215512345678', type: 'text', text: { body: 'Your order shipped  🚚' },
  });
});

test('a template without parameters is sent with no components', async (t) => {
  const peer = await startCloudApiStandIn(t);
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  await transport.send(template({ payload: { templateName: 'hello_world', language: 'en_US', params: [], renderedBody: 'Hello' } }), signal());

  assert.deepStrictEqual((peer.requests[0]?.json as { template: unknown }).template, { name: 'hello_world', language: { code: 'en_US' }, components: [] });
});

test('HTTP 429 is deferred with Meta\'s words', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({ kind: 'error', status: 429, body: metaErrorBody(80007, '(#80007) Rate limit hit') });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: new URL(peer.baseUrl).host, response: 'HTTP 429 error 80007: (#80007) Rate limit hit' });
});

test('HTTP 503 is deferred', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({ kind: 'error', status: 503, body: metaErrorBody(2, 'Service temporarily unavailable') });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  assert.equal((await transport.send(template(), signal())).kind, 'deferred');
});

test('a rate limit Meta reports as HTTP 400 (error 130429) is deferred', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({ kind: 'error', status: 400, body: metaErrorBody(130429, '(#130429) Rate limit hit') });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  assert.equal((await transport.send(template(), signal())).kind, 'deferred');
});

test('HTTP 400 with a Meta error fails after leaving the house, with Meta\'s code, message and details', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({
    kind: 'error', status: 400,
    body: metaErrorBody(131009, '(#131009) Parameter value is not valid', { error_data: { messaging_product: 'whatsapp', details: 'Template name does not exist in en' } }),
  });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, {
    kind: 'failed', peer: new URL(peer.baseUrl).host, leftTheHouse: true,
    response: 'HTTP 400 error 131009: (#131009) Parameter value is not valid (Template name does not exist in en)',
  });
});

test('HTTP 401 for an expired token fails without leaving the house (refunded)', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({ kind: 'error', status: 401, body: metaErrorBody(190, 'Error validating access token: Session has expired', { error_subcode: 463 }) });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, {
    kind: 'failed', peer: new URL(peer.baseUrl).host, leftTheHouse: false,
    response: 'HTTP 401 error 190/463: Error validating access token: Session has expired',
  });
});

test('an account without credentials fails without leaving the house and sends nothing', async (t) => {
  const peer = await startCloudApiStandIn(t);
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => undefined });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, { kind: 'failed', peer: new URL(peer.baseUrl).host, response: 'WhatsApp is not configured for this account', leftTheHouse: false });
  assert.equal(peer.requests.length, 0);
});

test('the credentials are looked up for the message\'s account', async (t) => {
  const peer = await startCloudApiStandIn(t);
  const asked: string[] = [];
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async (accountId) => { asked.push(accountId); return CREDENTIALS; } });

  await transport.send(template({ accountId: 'account-7' }), signal());

  assert.deepStrictEqual(asked, ['account-7']);
});

test('no answer within the time-out is deferred', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({ kind: 'silence' });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS, timeoutMs: 100 });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: new URL(peer.baseUrl).host, response: 'no answer within 100 ms' });
});

test('a refused connection is deferred as a network error', async () => {
  // A port that was free a moment ago: nothing listens on it.
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  const transport = cloudApiTransport({ baseUrl: `http://127.0.0.1:${port}/v23.0`, credentials: async () => CREDENTIALS });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${port}`, response: 'network error: ECONNREFUSED' });
});

test('a redirect is not followed and fails without leaving the house', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({ kind: 'error', status: 302, body: {} });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  const outcome = await transport.send(template(), signal());

  assert.deepStrictEqual(outcome, { kind: 'failed', peer: new URL(peer.baseUrl).host, response: 'HTTP 302: {}', leftTheHouse: false });
  assert.equal(peer.requests.length, 1);
});

test('the access token never appears in an outcome, even when the peer echoes it', async (t) => {
  const peer = await startCloudApiStandIn(t);
  peer.answer({ kind: 'error', status: 400, body: metaErrorBody(100, `Invalid parameter: token ${TOKEN}`) });
  const transport = cloudApiTransport({ baseUrl: peer.baseUrl, credentials: async () => CREDENTIALS });

  const outcome = await transport.send(template(), signal());

  assert.equal(outcome.response, 'HTTP 400 error 100: Invalid parameter: token [redacted]');
});
