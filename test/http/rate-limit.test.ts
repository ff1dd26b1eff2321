// The spec's 429: 2 requests per second per account by default, the exact Spanish
// body, the RateLimit headers, and the window reopening after a second.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccount } from '../../src/app/create-account.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';
import type { Service } from '../../src/service.ts';
import { emailBody, openAccount, post, smsBody, startService } from '../support/service.ts';

const RATE_LIMITED = {
  success: false,
  message: 'Ha excedido el límite de peticiones permitidas por segundo.',
  error: 'RATE_LIMIT_EXCEEDED',
};

/** An account as the operator opens it, without choosing a rate: the spec's default. */
async function defaultRateAccount(service: Service): Promise<{ id: string; apiKey: string }> {
  const { account, apiKey } = await createAccount(service.deps, { name: 'default-rate', messagesLeft: 1000 });
  await insertSenderDomain(service.deps.db, { id: service.deps.newId(), accountId: account.id, domain: 'example.com', verified: true, createdAt: service.deps.clock() });
  return { id: account.id, apiKey: apiKey.apiKey };
}

/**
 * Runs `burst` with the key of a fresh account at `rate` until the burst fits in one
 * second: on a busy machine sequential requests can straddle two rate windows, and the
 * request meant to be refused would then open the next one.
 */
async function inOneWindow<T>(service: Service, rate: number, burst: (apiKey: string) => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    const account = await openAccount(service, { rateLimitPerSecond: rate });
    const started = performance.now();
    const result = await burst(account.apiKey);
    if (performance.now() - started < 900 || tries === 3) return result;
  }
}

test('an account opened without a rate is limited to 2 requests per second', async (t) => {
  const service = await startService(t);
  const account = await defaultRateAccount(service);
  const responses = await Promise.all(Array.from({ length: 10 }, () => post(service, '/v1/email', account.apiKey, emailBody())));
  const passed = responses.filter((r) => r.statusCode !== 429);
  assert.ok(passed.length >= 1 && passed.length <= 2, `${passed.length} requests passed`);
  assert.equal(responses.filter((r) => r.statusCode === 429).length, 10 - passed.length);
});

test('10 simultaneous requests at 2 per second: at most 2 pass, the rest get 429 RATE_LIMIT_EXCEEDED', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { rateLimitPerSecond: 2 });
  const responses = await Promise.all(Array.from({ length: 10 }, () => post(service, '/v1/email', account.apiKey, emailBody())));
  const passed = responses.filter((r) => r.statusCode !== 429);
  assert.ok(passed.length <= 2, `${passed.length} requests passed`);
  for (const r of passed) assert.equal(r.statusCode, 200);
  for (const r of responses.filter((x) => x.statusCode === 429)) assert.deepStrictEqual(r.json(), RATE_LIMITED);
  assert.ok(responses.filter((r) => r.statusCode === 429).length >= 8);
});

test('a rate-limited request gets 429 with the exact body', async (t) => {
  const service = await startService(t);
  const res = await inOneWindow(service, 2, async (apiKey) => {
    await post(service, '/v1/email', apiKey, emailBody());
    await post(service, '/v1/email', apiKey, emailBody());
    return post(service, '/v1/email', apiKey, emailBody());
  });
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), RATE_LIMITED);
});

test('a rate-limited request carries Retry-After and the RateLimit headers', async (t) => {
  const service = await startService(t);
  const res = await inOneWindow(service, 2, async (apiKey) => {
    await post(service, '/v1/email', apiKey, emailBody());
    await post(service, '/v1/email', apiKey, emailBody());
    return post(service, '/v1/email', apiKey, emailBody());
  });
  assert.equal(res.statusCode, 429);
  assert.match(String(res.headers['retry-after']), /^[1-9][0-9]*$/);
  assert.equal(res.headers['ratelimit-limit'], '2');
  assert.equal(res.headers['ratelimit-remaining'], '0');
  assert.match(String(res.headers['ratelimit-reset']), /^[1-9][0-9]*$/);
});

test('an accepted request carries the RateLimit headers with what is left of the window', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { rateLimitPerSecond: 2 });
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['ratelimit-limit'], '2');
  assert.equal(res.headers['ratelimit-remaining'], '1');
  assert.match(String(res.headers['ratelimit-reset']), /^[1-9][0-9]*$/);
  assert.equal(res.headers['retry-after'], undefined);
});

test('after the second has passed a request is accepted again', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { rateLimitPerSecond: 2 });
  const burst = await Promise.all(Array.from({ length: 5 }, () => post(service, '/v1/email', account.apiKey, emailBody())));
  assert.ok(burst.some((r) => r.statusCode === 429));
  await sleep(1100);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
});

test('the limit is per account: one account at its limit does not slow another', async (t) => {
  const service = await startService(t);
  const busy = await openAccount(service, { rateLimitPerSecond: 2 });
  const quiet = await openAccount(service, { rateLimitPerSecond: 2 });
  await Promise.all(Array.from({ length: 5 }, () => post(service, '/v1/email', busy.apiKey, emailBody())));
  const res = await post(service, '/v1/email', quiet.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
});

test('the limit counts every operation of the account together', async (t) => {
  const service = await startService(t);
  const [email, sms, res] = await inOneWindow(service, 2, async (apiKey) => [
    await post(service, '/v1/email', apiKey, emailBody()),
    await post(service, '/v1/sms/send', apiKey, smsBody()),
    await post(service, '/v1/sms/send', apiKey, smsBody()),
  ]);
  assert.deepStrictEqual([email.statusCode, sms.statusCode], [200, 200]);
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), RATE_LIMITED);
});

test('the SMS operation gets the same 429 body', async (t) => {
  const service = await startService(t);
  const res = await inOneWindow(service, 1, async (apiKey) => {
    await post(service, '/v1/sms/send', apiKey, smsBody());
    return post(service, '/v1/sms/send', apiKey, smsBody());
  });
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), RATE_LIMITED);
});

test('the WhatsApp operation gets the same 429 body', async (t) => {
  const service = await startService(t);
  const url = '/v1/whatsapp/sendTemplateMessage';
  const res = await inOneWindow(service, 1, async (apiKey) => {
    await post(service, url, apiKey, { destination: '5215512345678', templateId: 'x', params: [] });
    return post(service, url, apiKey, { destination: '5215512345678', templateId: 'x', params: [] });
  });
  assert.equal(res.statusCode, 429);
  assert.deepStrictEqual(res.json(), RATE_LIMITED);
});

test('a raised rate lets that many requests through in the same second', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { rateLimitPerSecond: 5 });
  const responses = await Promise.all(Array.from({ length: 5 }, () => post(service, '/v1/email', account.apiKey, emailBody())));
  assert.deepStrictEqual(responses.map((r) => r.statusCode), [200, 200, 200, 200, 200]);
});

test('requests refused before authentication do not use up the account\'s rate', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { rateLimitPerSecond: 2 });
  for (let i = 0; i < 5; i++) await post(service, '/v1/email', 'garbage', emailBody());
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
});
