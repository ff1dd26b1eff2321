// Synchronous bounces: the recipient's server refuses RCPT TO during delivery (a
// real SMTP peer on 127.0.0.1), the message is bounced at once with the reply's
// details on its event, and a hard bounce suppresses the address in the same
// transaction, so the next send to it is dropped.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startSmtpSink, type SinkFailure, type SmtpSink } from '../peers/smtp-sink.ts';
import type { Service } from '../../src/service.ts';
import { listSuppressions } from '../../src/store/suppressions.ts';
import { emailBody, get, openAccount, post, readAccount, startService, type TestAccount } from '../support/service.ts';

const AT = Date.parse('2025-05-02T12:00:00.000Z');

async function refusedDelivery(t: TestContext, failure: SinkFailure): Promise<{ service: Service; account: TestAccount; sink: SmtpSink; msgid: string }> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const service = await startService(t, { clock: () => AT, env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } });
  const account = await openAccount(service);
  sink.failNext(failure);
  const msgid: string = (await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid;
  await service.worker.drain();
  return { service, account, sink, msgid };
}

async function lastEvent(service: Service, apiKey: string, msgid: string): Promise<{ status: string; event: unknown }> {
  const body = (await get(service, `/v1/messages/${msgid}`, apiKey)).json();
  return { status: body.status, event: body.events.at(-1) };
}

test('a 550 5.1.1 to RCPT TO bounces the message hard at once, with the reply on the event', async (t) => {
  const { service, account, sink, msgid } = await refusedDelivery(t, { stage: 'rcpt', code: 550, message: '5.1.1 <ana@example.org>: user unknown' });

  assert.deepStrictEqual(await lastEvent(service, account.apiKey, msgid), {
    status: 'bounced',
    event: {
      type: 'bounced', at: '2025-05-02T12:00:00.000Z', attempt: 1, peer: `${sink.host}:${sink.port}`, response: '550 5.1.1 <ana@example.org>: user unknown',
      refunded: false, bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <ana@example.org>: user unknown', source: 'smtp',
    },
  });
});

test('a hard synchronous bounce suppresses the address, and the next send to it is dropped unbilled', async (t) => {
  const { service, account, msgid } = await refusedDelivery(t, { stage: 'rcpt', code: 550, message: '5.1.1 <ana@example.org>: user unknown' });
  assert.deepStrictEqual(await listSuppressions(service.deps.db, account.id, { limit: 10 }), [
    { address: 'ana@example.org', reason: 'bounced', messageId: msgid, createdAt: AT },
  ]);
  const before = (await readAccount(service, account.id)).messagesLeft;

  const again: string = (await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid;

  assert.equal((await lastEvent(service, account.apiKey, again)).status, 'dropped');
  assert.equal((await readAccount(service, account.id)).messagesLeft, before);
});

test('a full mailbox (552 5.2.2) is a soft bounce: bounced, the address stays sendable', async (t) => {
  const { service, account, msgid } = await refusedDelivery(t, { stage: 'rcpt', code: 552, message: '5.2.2 <ana@example.org>: mailbox full' });

  const { status, event } = await lastEvent(service, account.apiKey, msgid);
  assert.equal(status, 'bounced');
  assert.deepStrictEqual({ ...(event as Record<string, unknown>), peer: undefined }, {
    type: 'bounced', at: '2025-05-02T12:00:00.000Z', attempt: 1, peer: undefined, response: '552 5.2.2 <ana@example.org>: mailbox full',
    refunded: false, bounce_type: 'soft', status_code: '5.2.2', diagnostic: '552 5.2.2 <ana@example.org>: mailbox full', source: 'smtp',
  });
  assert.deepStrictEqual(await listSuppressions(service.deps.db, account.id, { limit: 10 }), []);
});
