// Every answer carries x-request-id; an exception that reaches a route is logged at
// error with its stack and that id, counted, and answered with the route's interface text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { sql } from 'kysely';
import { captureLog, unexpectedRequestErrors } from '../support/captured-log.ts';
import { emailBody, get, openAccount, post, postFrom, startService, UUID } from '../support/service.ts';

test('a health probe answer carries a generated UUID as x-request-id', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: '/healthz' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['x-request-id']), UUID);
});

test('two requests get different request ids', async (t) => {
  const service = await startService(t);
  const first = await service.http.inject({ method: 'GET', url: '/healthz' });
  const second = await service.http.inject({ method: 'GET', url: '/healthz' });
  assert.notEqual(first.headers['x-request-id'], second.headers['x-request-id']);
});

test('refusals before the body, unknown paths and unparsable bodies carry x-request-id too', async (t) => {
  const service = await startService(t, { env: { HERALD_BODY_LIMIT: '2048' } });
  const account = await openAccount(service);
  const answers = [
    await post(service, '/v1/email', undefined, emailBody()),
    await service.http.inject({ method: 'GET', url: '/nowhere' }),
    await post(service, '/v1/email', account.apiKey, '{"to":'),
    await post(service, '/v1/email', account.apiKey, emailBody({ body: 'x'.repeat(4096) })),
    await postFrom(service, '/v1/email', { apiKey: account.apiKey, headers: { 'content-type': 'text/plain' }, body: 'hi' }),
  ];
  assert.deepStrictEqual(answers.map((res) => res.statusCode), [403, 404, 400, 413, 415]);
  for (const res of answers) assert.match(String(res.headers['x-request-id']), UUID);
});

test("a caller's short plain x-request-id is kept on the answer", async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'lb-7f3a.91:2' } });
  assert.equal(res.headers['x-request-id'], 'lb-7f3a.91:2');
});

test("a caller's x-request-id with spaces, quotes or over 128 characters is replaced by a UUID", async (t) => {
  const service = await startService(t);
  for (const incoming of ['two words', 'a"b', 'x'.repeat(129), '']) {
    const res = await service.http.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': incoming } });
    assert.match(String(res.headers['x-request-id']), UUID, JSON.stringify(incoming));
  }
});

test('an exception in a send is logged at error with its stack and request id, counted, and answered with the spec text', async (t) => {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service);
  // The store fails mid-request: the debit's ledger row has nowhere to go.
  await sql`drop table ledger`.execute(service.deps.db);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not send message, an error has ocurred' });
  const requestId = String(res.headers['x-request-id']);
  assert.match(requestId, UUID);
  const errors = log.errors();
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.msg, 'request failed');
  assert.equal(errors[0]?.reqId, requestId);
  assert.equal(errors[0]?.requestId, requestId);
  assert.equal(errors[0]?.route, '/v1/email');
  assert.match(String(errors[0]?.err?.stack), /ledger/);
  assert.match(String(errors[0]?.err?.stack), /\n\s+at /);
  assert.equal(await unexpectedRequestErrors(service), 1);
});

test('an exception on a route that is not a send is answered 500 with the interface text', async (t) => {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service);
  await sql`drop table email_templates`.execute(service.deps.db);
  const res = await get(service, '/v1/email/templates', account.apiKey);
  assert.equal(res.statusCode, 500);
  assert.deepStrictEqual(res.json(), { message: 'An error has ocurred, please try again. Contact us if the issue persists' });
  assert.equal(log.errors()[0]?.requestId, res.headers['x-request-id']);
  assert.equal(await unexpectedRequestErrors(service), 1);
});

test('refused input is not counted as an unexpected error', async (t) => {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service);
  await post(service, '/v1/email', account.apiKey, '{"to":');
  await post(service, '/v1/email', account.apiKey, emailBody({ subject: '' }));
  assert.equal(await unexpectedRequestErrors(service), 0);
  assert.deepStrictEqual(log.errors(), []);
});

test('a request Node cannot parse gets a JSON 400 with x-request-id and the connection closed', async (t) => {
  const service = await startService(t);
  await service.http.listen({ port: 0, host: '127.0.0.1' });
  const address = service.http.server.address();
  assert.ok(address !== null && typeof address === 'object');
  const socket = connect(address.port, '127.0.0.1');
  await once(socket, 'connect');
  socket.end('GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
  let raw = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => { raw += chunk; });
  await once(socket, 'close');
  const [head = '', body] = raw.split('\r\n\r\n');
  const lines = head.split('\r\n');
  assert.equal(lines[0], 'HTTP/1.1 400 Bad Request');
  assert.match(lines.find((line) => line.startsWith('x-request-id: ')) ?? '', /^x-request-id: [0-9a-f-]{36}$/);
  assert.ok(lines.includes('connection: close'));
  assert.deepStrictEqual(JSON.parse(body ?? ''), { message: 'Invalid request, malformed HTTP' });
});
