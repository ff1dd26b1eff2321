// The application/json parser: UTF-8 only, at most 64 levels deep and 100,000 values,
// refused in the interface's JSON style before anything recurses over the body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { jsonComplexity } from '../../src/http/json-checks.ts';
import { captureLog } from '../support/captured-log.ts';
import { ADMIN_TOKEN, emailBody, openAccount, post, postFrom, startService } from '../support/service.ts';

const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
const postBytes = (service: Service, apiKey: string, contentType: string, payload: Buffer) =>
  service.http.inject({ method: 'POST', url: '/v1/email', headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType }, payload });
/** A valid email with `extra` (an unknown field, ignored) set to raw JSON. */
const emailWithExtra = (json: string): string => `{"extra":${json},${JSON.stringify(emailBody()).slice(1)}`;

test('metadata nested 5,000 deep is refused with 400 and nothing is logged at error', async (t) => {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service);
  const metadata = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  const res = await post(service, '/v1/email', account.apiKey, `{"metadata":${metadata},${JSON.stringify(emailBody()).slice(1)}`);
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, the JSON body is nested more than 64 levels deep' });
  assert.deepStrictEqual(log.errors(), []);
});

test('a body 64 levels deep is parsed', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  // The email object is the first level.
  const res = await post(service, '/v1/email', account.apiKey, emailWithExtra(nested(63)));
  assert.equal(res.statusCode, 200);
});

test('a body 65 levels deep is refused', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailWithExtra(nested(64)));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, the JSON body is nested more than 64 levels deep' });
});

test('brackets, braces, commas and escaped quotes inside strings are not structure', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const subject = `\\"[{${'[{,'.repeat(40_000)}`;
  const res = await post(service, '/v1/email', account.apiKey, emailWithExtra(`"${subject}"`));
  assert.equal(res.statusCode, 200);
});

test('a body of 100,000 values is parsed', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  // The email's own fields and separators are 12 values (commas and openings counted).
  const res = await post(service, '/v1/email', account.apiKey, emailWithExtra(`[${Array(100_000 - 12).fill(0).join(',')}]`));
  assert.equal(res.statusCode, 200);
});

test('a body of more than 100,000 values is refused', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailWithExtra(`[${Array(100_000 - 11).fill(0).join(',')}]`));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, the JSON body has more than 100000 values' });
});

test('a body declared iso-8859-1 is refused with 415', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postBytes(service, account.apiKey, 'application/json; charset=iso-8859-1', Buffer.from(JSON.stringify(emailBody({ subject: 'Café' })), 'latin1'));
  assert.equal(res.statusCode, 415);
  assert.deepStrictEqual(res.json(), { message: 'Unsupported charset, send application/json in UTF-8' });
});

test('a body declared "UTF-8" in quotes and capitals is accepted', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postFrom(service, '/v1/email', { apiKey: account.apiKey, headers: { 'content-type': 'application/json; charset="UTF-8"' }, body: emailBody() });
  assert.equal(res.statusCode, 200);
});

test('a body with bytes that are not UTF-8 is refused with 400', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postBytes(service, account.apiKey, 'application/json', Buffer.from(JSON.stringify(emailBody({ subject: 'Café' })), 'latin1'));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, the body is not valid UTF-8' });
});

test('an operator body nested too deep is refused with 400, not 500', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({
    method: 'POST', url: '/admin/v1/accounts',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: `{"name":"acme","ipAllowList":${nested(5000)}}`,
  });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, the JSON body is nested more than 64 levels deep' });
});

test('the scan finds the structure after strings longer than its byte loop, with escaped quotes and backslash runs', () => {
  const deep = `${'['.repeat(64)}${']'.repeat(64)}`;
  for (const text of [`"${'a'.repeat(100)}\\\\"`, `"${'a'.repeat(70)}\\"[[[["`, `"${'\\\\'.repeat(50)}"`, `"${'b'.repeat(63)}\\"x"`, JSON.stringify('"'.repeat(1000))]) {
    JSON.parse(text);
    assert.equal(jsonComplexity(Buffer.from(`[${text}]`)), undefined, text);
    assert.equal(jsonComplexity(Buffer.from(`[${text},${deep}]`)), 'tooDeep', text);
  }
});

test('an unterminated string leaves the body to JSON.parse', () => {
  assert.equal(jsonComplexity(Buffer.from(`["${'a'.repeat(100)}\\"]`)), undefined);
});
