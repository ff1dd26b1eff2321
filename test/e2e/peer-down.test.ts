import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { emailBody, get, openAccount, post, startService } from '../support/service.ts';

interface Event { type: string; at: string; attempt?: number; response?: string }

test('while the SMTP peer refuses connections an email is deferred with growing backoff, then delivered once it is back', async (t) => {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const start = Date.UTC(2026, 0, 1);
  const now = { value: start };
  const service = await startService(t, { clock: () => now.value, env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } });
  const account = await openAccount(service);
  const msgid: string = (await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid;

  sink.refuseConnections(true);
  await service.worker.drain(); // attempt 1, refused
  now.value += 40_000; // past the first backoff (30 s ± 20 %)
  await service.worker.drain(); // attempt 2, refused
  now.value += 20_000; // the second backoff (60 s ± 20 %) has not passed: nothing is due
  assert.equal(await service.worker.drain(), 0);
  sink.refuseConnections(false);
  now.value += 60_000;
  await service.worker.drain(); // attempt 3, delivered

  assert.equal(sink.messages.length, 1);
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json() as { status: string; events: Event[] };
  assert.equal(view.status, 'sent');
  assert.deepStrictEqual(view.events.map((e) => [e.type, e.attempt ?? null, Date.parse(e.at) - start]), [
    ['queued', null, 0],
    ['sending', 1, 0],
    ['deferred', 1, 0],
    ['sending', 2, 40_000],
    ['deferred', 2, 40_000],
    ['sending', 3, 120_000],
    ['sent', 3, 120_000],
  ]);
  const refusals = view.events.filter((e) => e.type === 'deferred').map((e) => e.response ?? '');
  for (const refusal of refusals) assert.match(refusal, /ECONNREFUSED/);
});
