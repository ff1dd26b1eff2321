import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import { recordPeerStatus } from '../../src/app/record-peer-status.ts';
import type { Outcome } from '../../src/channels/channel.ts';
import { OutboxWorker, type Transports } from '../../src/queue/outbox/worker.ts';
import type { Service } from '../../src/service.ts';
import { get, openAccount, post, smsBody, startService } from '../support/service.ts';

async function sentSms(service: Service, providerRef: string) {
  const account = await openAccount(service);
  const msgid: string = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid;
  const gateway = { name: 'smsc', send: async (): Promise<Outcome> => ({ kind: 'accepted', peer: 'smsc', response: 'ESME_ROK', providerRef }) };
  const transports = { email: gateway, sms: gateway, whatsapp: gateway } as unknown as Transports;
  const worker = new OutboxWorker(
    { db: service.store.db, clock: service.deps.clock, newId: uuidv7, capabilities: service.store.capabilities, transports, logger: pino({ level: 'silent' }) },
    { owner: 'w', batchSize: 10, concurrency: 10, leaseMs: 60_000, pollMs: 50 },
  );
  await worker.drain();
  return { account, msgid };
}

test('a delivery receipt naming the provider reference moves a sent message to delivered', async (t) => {
  const service = await startService(t);
  const { account, msgid } = await sentSms(service, 'smsc-42');

  const result = await recordPeerStatus(service.deps, { channel: 'sms', providerRef: 'smsc-42', status: 'delivered', peer: 'smsc', response: 'stat:DELIVRD err:000' });

  assert.equal(result, 'recorded');
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'delivered');
  assert.deepStrictEqual(view.events.map((e: { type: string }) => e.type), ['queued', 'sending', 'sent', 'delivered']);
  assert.equal(view.events.at(-1).response, 'stat:DELIVRD err:000');
});

test('a receipt for an unknown provider reference is answered as unknown and changes nothing', async (t) => {
  const service = await startService(t);
  await sentSms(service, 'smsc-42');
  assert.equal(await recordPeerStatus(service.deps, { channel: 'sms', providerRef: 'smsc-999', status: 'delivered', peer: 'smsc', response: '' }), 'unknown-message');
});

test('a late sent report after delivered adds its event but does not move the message back', async (t) => {
  const service = await startService(t);
  const { account, msgid } = await sentSms(service, 'wamid.1');
  await recordPeerStatus(service.deps, { channel: 'sms', providerRef: 'wamid.1', status: 'delivered', peer: 'p', response: 'delivered' });
  await recordPeerStatus(service.deps, { channel: 'sms', providerRef: 'wamid.1', status: 'sent', peer: 'p', response: 'sent' });
  const view = (await get(service, `/v1/messages/${msgid}`, account.apiKey)).json();
  assert.equal(view.status, 'delivered');
  assert.deepStrictEqual(view.events.map((e: { type: string }) => e.type), ['queued', 'sending', 'sent', 'delivered', 'sent']);
});

test('reports arriving together are each recorded, a second report on one message after its first', async (t) => {
  const service = await startService(t);
  const first = await sentSms(service, 'smsc-1');
  const second = await sentSms(service, 'smsc-2');
  const report = (providerRef: string, status: 'delivered' | 'bounced') => recordPeerStatus(service.deps, { channel: 'sms', providerRef, status, peer: 'smsc', response: status });

  const results = await Promise.all([report('smsc-1', 'delivered'), report('smsc-1', 'bounced'), report('smsc-2', 'delivered'), report('smsc-404', 'delivered')]);

  assert.deepStrictEqual(results, ['recorded', 'recorded', 'recorded', 'unknown-message']);
  const one = (await get(service, `/v1/messages/${first.msgid}`, first.account.apiKey)).json();
  assert.equal(one.status, 'bounced');
  assert.deepStrictEqual(one.events.map((e: { type: string }) => e.type), ['queued', 'sending', 'sent', 'delivered', 'bounced']);
  assert.equal((await get(service, `/v1/messages/${second.msgid}`, second.account.apiKey)).json().status, 'delivered');
});
