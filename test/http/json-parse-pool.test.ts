// JSON bodies over JSON_WORKER_THRESHOLD_BYTES (1 MiB) are checked and parsed in worker
// threads: the same answers as on the event loop (json-body.test.ts has the small
// bodies), the same values, and a pool that ends its threads.
import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { JSON_WORKER_THRESHOLD_BYTES } from '../../src/http/json-body.ts';
import { jsonParsePool } from '../../src/http/json-parse-pool.ts';
import { captureLog } from '../support/captured-log.ts';
import { emailBody, get, openAccount, startService } from '../support/service.ts';

const postBytes = (service: Service, apiKey: string, url: string, payload: Buffer) =>
  service.http.inject({ method: 'POST', url, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, payload });

/** A valid email with `extra` (an unknown field, ignored) set to raw JSON, as bytes over the threshold. */
function largeEmail(extra: string): Buffer {
  const padding = `"padding":"${'p'.repeat(JSON_WORKER_THRESHOLD_BYTES)}",`;
  return Buffer.from(`{${padding}"extra":${extra},${JSON.stringify(emailBody()).slice(1)}`);
}

test('a template of 1,000,000 two-byte characters (a 2 MB body) is parsed in a thread and stored as sent', async (t) => {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service);
  const html = `<p>${'é'.repeat(999_993)}</p>`;
  const body = Buffer.from(JSON.stringify({ name: 'wide', html }));
  assert.ok(body.length > JSON_WORKER_THRESHOLD_BYTES);
  const created = await postBytes(service, account.apiKey, '/v1/email/templates', body);
  assert.equal(created.statusCode, 201, created.body);
  const read = await get(service, `/v1/email/templates/${(created.json() as { template_id: string }).template_id}`, account.apiKey);
  assert.equal((read.json() as { html: string }).html, html);
  assert.deepStrictEqual(log.errors(), []);
});

test('a large body 65 levels deep is refused with the small body\'s answer', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postBytes(service, account.apiKey, '/v1/email', largeEmail('['.repeat(64) + ']'.repeat(64)));
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Invalid request, the JSON body is nested more than 64 levels deep' } });
});

test('a large body with more than 100,000 values is refused with the small body\'s answer', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postBytes(service, account.apiKey, '/v1/email', largeEmail(`[${Array(100_000).fill(0).join(',')}]`));
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Invalid request, the JSON body has more than 100000 values' } });
});

test('a large body with bytes that are not UTF-8 is refused with the small body\'s answer', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postBytes(service, account.apiKey, '/v1/email', Buffer.concat([largeEmail('1'), Buffer.from([0xff])]));
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Invalid request, the body is not valid UTF-8' } });
});

test('a large body that is not JSON is refused with the small body\'s answer', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await postBytes(service, account.apiKey, '/v1/email', largeEmail('nope'));
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Invalid request, missing parameters. err 1' } });
});

test('the pool gives the value JSON.parse gives, with __proto__ keys dropped, for bodies moved or copied to it', async (t) => {
  const pool = jsonParsePool(2);
  t.after(() => pool.close());
  const value = { list: Array.from({ length: 1000 }, (_, i) => ({ i, text: `ü${i}`, nested: [[i], { deep: null }] })), flag: true };
  const text = JSON.stringify(value);
  // A Buffer of its own memory (moved to the thread), and a slice of a larger one (copied).
  const own = Buffer.from(text);
  const slice = Buffer.from(`xx${text}`).subarray(2);
  assert.deepStrictEqual(await pool.parse(own), { value });
  assert.deepStrictEqual(await pool.parse(slice), { value });
  const poisoned = await pool.parse(Buffer.from('{"a":1,"__proto__":{"polluted":true}}'));
  assert.deepStrictEqual(poisoned, { value: { a: 1 } });
  assert.equal(Object.hasOwn((poisoned as { value: object }).value, '__proto__'), false);
});

test('more parses than threads all come back, each with its own value', async (t) => {
  const pool = jsonParsePool(2);
  t.after(() => pool.close());
  const outcomes = await Promise.all(Array.from({ length: 7 }, (_, i) => pool.parse(Buffer.from(JSON.stringify({ i, pad: 'x'.repeat(100_000 * i) })))));
  assert.deepStrictEqual(outcomes.map((outcome) => (outcome as { value: { i: number } }).value.i), [0, 1, 2, 3, 4, 5, 6]);
});

test('a closed pool refuses parses, and parses under way when it closes fail', async () => {
  const pool = jsonParsePool(1);
  const underWay = pool.parse(Buffer.from(JSON.stringify({ text: 'x'.repeat(5_000_000) })));
  await pool.close();
  await assert.rejects(underWay, /the JSON parse thread exited/);
  await assert.rejects(pool.parse(Buffer.from('{}')), /the JSON parse pool is closed/);
});

test('on Linux the pool\'s threads run at nice 10, below the event loop', { skip: process.platform !== 'linux' }, async (t) => {
  const pool = jsonParsePool(1);
  t.after(() => pool.close());
  await pool.parse(Buffer.from('{}'));
  // Field 19 of /proc/<pid>/task/<tid>/stat is the nice value (16 after the command's closing parenthesis).
  const niceOf = (tid: string): number => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]);
  const nice = readdirSync('/proc/self/task').map(niceOf);
  assert.equal(nice.filter((value) => value === 10).length, 1, `nice values ${nice.join(' ')}`);
  // The event loop keeps the process's own value (0 unless the tests themselves run niced).
  assert.ok(niceOf(String(process.pid)) < 10);
});

test('a thread idle for the idle time ends, and the next parse starts another', { skip: process.platform !== 'linux' }, async (t) => {
  const pool = jsonParsePool(1, 50);
  t.after(() => pool.close());
  const threads = (): number => readdirSync('/proc/self/task').length;
  const before = threads();
  assert.deepStrictEqual(await pool.parse(Buffer.from('{"a":1}')), { value: { a: 1 } });
  assert.equal(threads(), before + 1);
  const deadline = Date.now() + 5000;
  while (threads() > before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(threads(), before);
  assert.deepStrictEqual(await pool.parse(Buffer.from('{"b":2}')), { value: { b: 2 } });
});
