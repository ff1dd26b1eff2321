// One info line per webhook delivery outcome, for operators (docs/operations.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, startWebhookReceiver, subscribe } from '../../peers/webhook-receiver.ts';
import { captureLog } from '../../support/captured-log.ts';
import { openAccount, post, smsBody, startService } from '../../support/service.ts';

const START = Date.UTC(2030, 0, 1);

test('each webhook delivery outcome is one info line with the host, event, status and attempt', async (t) => {
  // Date.now mocked: the service's clock and the receiver's check of the signature timestamps agree.
  t.mock.timers.enable({ apis: ['Date'], now: START });
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  await subscribe(service, account.apiKey, receiver);
  receiver.answerWith(500);
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  await service.worker.drain();
  await service.webhooks.drain();
  receiver.answerWith(200);
  await call(service, 'POST', '/v1/webhooks/test', account.apiKey);
  await service.webhooks.drain();

  const [sent, tested] = (await call(service, 'GET', '/v1/webhooks/deliveries', account.apiKey)).json().data.map((d: { id: string }) => d.id).reverse();
  const host = `127.0.0.1:${receiver.port}`;
  const lines = log.lines.filter((line) => line.msg === 'webhook delivery outcome').map(({ time: _time, pid: _pid, hostname: _hostname, ...line }) => line);
  assert.deepStrictEqual(lines, [
    {
      level: 30, delivery: sent, account: account.id, host, event: 'sms.sent', status: 'pending', statusCode: 500, attempt: 1,
      nextAttemptAt: new Date(START + 5000).toISOString(), error: 'HTTP 500: receiver says no', msg: 'webhook delivery outcome',
    },
    { level: 30, delivery: tested, account: account.id, host, event: 'webhook.test', status: 'succeeded', statusCode: 200, attempt: 1, msg: 'webhook delivery outcome' },
  ]);
});
