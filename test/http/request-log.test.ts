// What the service logs at info: one line per answered request (with the account once
// authenticated, and a send's msgids), none for health probes, one per delivery outcome
// (with the id of the request that sent the message).
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
  const msgid = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;
  const requestLines = lines.filter((line) => line.msg === 'request completed');
  assert.deepStrictEqual(requestLines.map(stable), [
    { level: 30, method: 'POST', url: '/v1/sms/send', statusCode: 200, remoteAddress: '127.0.0.1', account: account.id, msgids: [msgid], msg: 'request completed' },
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

test('a send\'s request line names its msgids, and their delivery lines carry the request\'s id through the outbox', async (t) => {
  const { logger, lines } = captureLog();
  const service = await startService(t, { logger, clock: () => START });
  const account = await openAccount(service);
  const sent = await service.http.inject({
    method: 'POST', url: '/v1/email', payload: emailBody({ to: [{ email: 'ana@example.org' }, { email: 'ben@example.org' }] }),
    headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', 'x-request-id': 'checkout-7f3a' },
  });
  assert.equal(sent.statusCode, 200);
  const msgids = (sent.json().to as { msgid: string }[]).map((to) => to.msgid);
  assert.deepStrictEqual(
    lines.filter((line) => line.msg === 'request completed').map((line) => ({ reqId: line.reqId, msgids: line['msgids'] })),
    [{ reqId: 'checkout-7f3a', msgids }],
  );
  assert.equal(await service.worker.drain(), 2);
  const deliveries = lines.filter((line) => line.msg === 'delivery outcome').map((line) => ({ reqId: line.reqId, msgid: line['msgid'] }));
  assert.deepStrictEqual(deliveries.sort((a, b) => String(a.msgid).localeCompare(String(b.msgid))), msgids.map((msgid) => ({ reqId: 'checkout-7f3a', msgid })).sort((a, b) => a.msgid.localeCompare(b.msgid)));
});

test('a message no request sent (a campaign\'s) has delivery lines without a request id; a refused send names no msgid', async (t) => {
  const { logger, lines } = captureLog();
  const service = await startService(t, { logger, clock: () => START });
  const account = await openAccount(service);
  assert.equal((await post(service, '/v1/email', account.apiKey, emailBody({ subject: '' }))).statusCode, 400);
  assert.equal(lines.find((line) => line.msg === 'request completed')?.['msgids'], undefined);
  // A send stored without a request id, as sends made before migration 0027 and campaigns are.
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  await service.deps.db.updateTable('sends').set({ request_id: null }).execute();
  await service.worker.drain();
  const delivery = lines.find((line) => line.msg === 'delivery outcome');
  assert.equal(delivery !== undefined && !('reqId' in delivery), true);
});
