// What the service logs at info: one line per answered request (with the account once
// authenticated), none for health probes, one per delivery outcome.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureLog } from '../support/captured-log.ts';
import { emailBody, openAccount, post, smsBody, startService } from '../support/service.ts';

const START = Date.UTC(2026, 0, 5, 9, 0, 0);

/** The fields a test asserts exactly, without the ones that vary (time, pid, host, request id). */
function stable(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _time, pid: _pid, hostname: _hostname, reqId: _reqId, responseTime: _responseTime, ...rest } = line;
  return rest;
}

test('an authenticated request is logged in one line with its account', async (t) => {
  const { logger, lines } = captureLog();
  const service = await startService(t, { logger });
  const account = await openAccount(service);
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  const requestLines = lines.filter((line) => line.msg === 'request completed');
  assert.deepStrictEqual(requestLines.map(stable), [
    { level: 30, method: 'POST', url: '/v1/sms/send', statusCode: 200, remoteAddress: '127.0.0.1', account: account.id, msg: 'request completed' },
  ]);
  assert.equal(typeof requestLines[0]?.reqId, 'string');
  assert.equal(typeof requestLines[0]?.responseTime, 'number');
  // Fastify's own two lines per request are off.
  assert.deepStrictEqual(lines.filter((line) => line.msg === 'incoming request'), []);
});

test('a request refused before authentication is logged without an account', async (t) => {
  const { logger, lines } = captureLog();
  const service = await startService(t, { logger });
  await post(service, '/v1/email', 'not-a-key', emailBody());
  assert.deepStrictEqual(lines.filter((line) => line.msg === 'request completed').map(stable), [
    { level: 30, method: 'POST', url: '/v1/email', statusCode: 403, remoteAddress: '127.0.0.1', msg: 'request completed' },
  ]);
});

test('health probes write no log line', async (t) => {
  const { logger, lines } = captureLog();
  const service = await startService(t, { logger });
  const before = lines.length;
  assert.equal((await service.http.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  assert.equal((await service.http.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  assert.deepStrictEqual(lines.slice(before), []);
});

test('each delivery outcome is one info line with the message, account, channel, status, attempt and the peer\'s words', async (t) => {
  const { logger, lines } = captureLog();
  const service = await startService(t, { logger, clock: () => START });
  const account = await openAccount(service);
  const msgid = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;
  await service.worker.drain();
  const outcomes = lines.filter((line) => line.msg === 'delivery outcome');
  assert.deepStrictEqual(outcomes.map(stable), [
    { level: 30, msgid, account: account.id, channel: 'sms', status: 'sent', attempt: 1, peer: 'capture', response: 'captured 1 segment(s)', msg: 'delivery outcome' },
  ]);
});
