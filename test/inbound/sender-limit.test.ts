// HERALD_INBOUND_PER_SENDER_PER_MINUTE: past the bound, each door asks its peer to send
// the message again later, and stores nothing of it; another sender is taken as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import smpp from 'smpp';
import { emailReceiver } from '../../src/inbound/email-receiver.ts';
import type { DNSResolver } from '../../src/inbound/email-reader.ts';
import { listInbound } from '../../src/store/inbound-messages.ts';
import { postWebhook } from '../peers/whatsapp-cloud-api.ts';
import { startSmsc } from '../peers/smsc.ts';
import { openAccount, startService } from '../support/service.ts';

const APP_SECRET = 'meta-app-secret';
const SENDER = '+4930123456';

test('the third message a minute from one sender is asked to come back later, on every door', async (t) => {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const bound = once(smsc.events, 'bind');
  const service = await startService(t, {
    env: { HERALD_SMS_TRANSPORT: smsc.url(), HERALD_WHATSAPP_APP_SECRET: APP_SECRET, HERALD_INBOUND_PER_SENDER_PER_MINUTE: '2' },
  });
  const account = await openAccount(service, { whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: 'token' });
  await service.deps.db.updateTable('accounts').set({ sms_senders: JSON.stringify([SENDER]) }).where('id', '=', account.id).execute();
  await bound;

  await t.test('SMS: ESME_RTHROTTLED, and the message is not stored; another number is taken', async () => {
    const mo = (from: string, text: string) => smsc.sendMo('deliver_sm', { source_addr: from, destination_addr: SENDER.slice(1), short_message: Buffer.from(text) });
    const statuses = [(await mo('4915100000001', 'one')).command_status, (await mo('4915100000001', 'two')).command_status, (await mo('4915100000001', 'three')).command_status];
    assert.deepStrictEqual(statuses, [smpp.ESME_ROK, smpp.ESME_ROK, smpp.ESME_RTHROTTLED]);
    assert.equal((await mo('4915100000002', 'other')).command_status, smpp.ESME_ROK);
    const texts = (await listInbound(service.deps.db, account.id, { channel: 'sms', limit: 10 })).map((m) => m.text).reverse();
    assert.deepStrictEqual(texts, ['one', 'two', 'other']);
  });

  await t.test('WhatsApp: 503 with Retry-After, so Meta sends the body again later', async () => {
    const body = readFileSync(new URL('../fixtures/whatsapp/text.json', import.meta.url), 'utf8');
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push((await postWebhook(service, body, { appSecret: APP_SECRET })).statusCode);
    assert.deepStrictEqual(answers, [200, 200, 503]);
    assert.equal((await listInbound(service.deps.db, account.id, { channel: 'whatsapp', limit: 10 })).length, 1);
  });

  await t.test('email: 451 4.7.1 before the message is read', async () => {
    const noLookups: DNSResolver = async () => {
      throw new Error('a throttled message is not read');
    };
    const receiver = emailReceiver(service.deps, noLookups, 'mx.herald.test', pino({ level: 'silent' }));
    const client = { ip: '192.0.2.1', helo: 'mail.example.org', mailFrom: 'Flood@Example.org' };
    await receiver.receive(client, [], Buffer.from('unread'));
    await receiver.receive(client, [], Buffer.from('unread'));
    assert.deepStrictEqual(await receiver.receive(client, [], Buffer.from('unread')), { code: 451, text: '4.7.1 Too many messages from this sender, try again later' });
  });
});
