// Inbound SMS over SMPP (docs/inbound-sms.md): the SMSC stand-in sends mobile-originated
// deliver_sm and data_sm to a service bound to it, and the stored message's text is read back.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import smpp from 'smpp';
import { deliverOverdueSmsParts } from '../../../src/app/receive-sms-part.ts';
import { smppTransport } from '../../../src/channels/sms/smpp-transport.ts';
import type { Service } from '../../../src/service.ts';
import { listInbound } from '../../../src/store/inbound-messages.ts';
import { setWebhookTarget } from '../../../src/store/webhook-settings.ts';
import { startSmsc, type Smsc } from '../../peers/smsc.ts';
import { openAccount, post, startService } from '../../support/service.ts';

const SENDER = '+4930123456';

interface World {
  readonly smsc: Smsc;
  readonly service: Service;
  readonly accountId: string;
  readonly apiKey: string;
}

// One service bound to the stand-in for the file's subtests (a service costs more than
// its tests); each writes from a number of its own, and reads only what that number sent.
let w: World;
let people = 0;

async function world(t: TestContext): Promise<World> {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const bound = once(smsc.events, 'bind');
  const service = await startService(t, { env: { HERALD_SMS_TRANSPORT: smsc.url() } });
  const { id, apiKey } = await openAccount(service);
  await service.deps.db.updateTable('accounts').set({ sms_senders: JSON.stringify([SENDER]) }).where('id', '=', id).execute();
  // Queued only (no dispatcher runs here): the rows show what would be posted.
  await setWebhookTarget(service.deps.db, id, { url: 'https://hooks.example.com/sms' }, service.deps.clock());
  await bound;
  return { smsc, service, accountId: id, apiKey };
}

/** A new person, as the SMSC writes the number (international, without `+`). */
function person(): { source_addr: string; destination_addr: string } {
  people += 1;
  return { source_addr: `49151000000${people.toString().padStart(2, '0')}`, destination_addr: SENDER.slice(1) };
}

/** What `from` sent to SENDER, oldest first: text and content. */
async function received(from: { source_addr: string }): Promise<{ from: string; to: string; text: string | null; content: unknown }[]> {
  const messages = await listInbound(w.service.deps.db, w.accountId, { from: `+${from.source_addr}`, limit: 10 });
  return messages.reverse().map((m) => ({ from: m.from, to: m.to, text: m.text, content: m.content }));
}

/** The one-septet-per-octet form of GSM text as an SMSC sends it. */
const gsm = (septets: number[]): Buffer => Buffer.from(septets);
const ucs2 = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();
const udh8 = (reference: number, total: number, part: number): Buffer => Buffer.from([5, 0x00, 3, reference, total, part]);
const udh16 = (reference: number, total: number, part: number): Buffer => Buffer.from([6, 0x08, 4, reference >> 8, reference & 0xff, total, part]);

test('mobile-originated messages from the SMSC stand-in', async (t) => {
  w = await world(t);

  await t.test('a one-part GSM message is stored with its exact text, from the person to the account\'s sender, and answered ESME_ROK', async () => {
    const toSender = person();
    // "Hi @ £5 {€}" : @ is septet 0, £ is 1, { and € come after the escape 0x1B.
    const resp = await w.smsc.sendMo('deliver_sm', { ...toSender, short_message: gsm([0x48, 0x69, 0x20, 0x00, 0x20, 0x01, 0x35, 0x20, 0x1b, 0x28, 0x1b, 0x65, 0x1b, 0x29]) });

    assert.equal(resp.command_status, smpp.ESME_ROK);
    assert.deepStrictEqual(await received(toSender), [{ from: '+4915100000001', to: '+4930123456', text: 'Hi @ £5 {€}', content: null }]);
  });

  await t.test('a data_sm with message_payload is answered with data_sm_resp ESME_ROK and stored', async () => {
    const toSender = person();
    const resp = await w.smsc.sendMo('data_sm', { ...toSender, message_payload: gsm([...Buffer.from('Payload text')]) });

    assert.deepStrictEqual([resp.command, resp.command_status], ['data_sm_resp', smpp.ESME_ROK]);
    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['Payload text']);
  });

  await t.test('an SME delivery acknowledgement (esm_class message type 0010) is answered ESME_ROK and not stored', async () => {
    const toSender = person();
    const resp = await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x08, short_message: Buffer.from('ack') });

    assert.equal(resp.command_status, smpp.ESME_ROK);
    assert.deepStrictEqual(await received(toSender), []);
  });

  await t.test('the parts of a message with an 8-bit UDH reference are joined in order, whatever order they come in', async () => {
    const toSender = person();
    const second = await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(0x2a, 2, 2), Buffer.from(' world')]) });
    assert.equal(second.command_status, smpp.ESME_ROK);
    assert.deepStrictEqual(await received(toSender), []);

    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(0x2a, 2, 1), Buffer.from('Hello')]) });

    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['Hello world']);
  });

  await t.test('the parts of a message with a 16-bit UDH reference are joined', async () => {
    const toSender = person();
    for (const [part, text] of [[1, 'one,'], [2, 'two,'], [3, 'three']] as const) {
      await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh16(0x1234, 3, part), Buffer.from(text)]) });
    }
    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['one,two,three']);
  });

  await t.test('the parts of a message numbered by SAR TLVs are joined, in data_sm too', async () => {
    const toSender = person();
    await w.smsc.sendMo('data_sm', { ...toSender, message_payload: Buffer.from('first '), sar_msg_ref_num: 700, sar_total_segments: 2, sar_segment_seqnum: 1 });
    await w.smsc.sendMo('deliver_sm', { ...toSender, short_message: Buffer.from('second'), sar_msg_ref_num: 700, sar_total_segments: 2, sar_segment_seqnum: 2 });

    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['first second']);
  });

  await t.test('UCS-2 text keeps accents and an emoji, even one whose surrogate pair is split across two parts', async () => {
    const toSender = person();
    await w.smsc.sendMo('deliver_sm', { ...toSender, data_coding: 8, short_message: ucs2('Olá, ñandú 😀') });
    const split = ucs2('Año 🎉!');
    await w.smsc.sendMo('deliver_sm', { ...toSender, data_coding: 8, esm_class: 0x40, short_message: Buffer.concat([udh8(9, 2, 1), split.subarray(0, 10)]) });
    await w.smsc.sendMo('deliver_sm', { ...toSender, data_coding: 8, esm_class: 0x40, short_message: Buffer.concat([udh8(9, 2, 2), split.subarray(10)]) });

    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['Olá, ñandú 😀', 'Año 🎉!']);
  });

  await t.test('Latin-1 (data_coding 3) and IA5 (data_coding 1) are read as their own tables', async () => {
    const toSender = person();
    await w.smsc.sendMo('deliver_sm', { ...toSender, data_coding: 3, short_message: Buffer.from('Grüße, café ©', 'latin1') });
    await w.smsc.sendMo('deliver_sm', { ...toSender, data_coding: 1, short_message: Buffer.from('a_b@c.de [x]', 'ascii') });

    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['Grüße, café ©', 'a_b@c.de [x]']);
  });

  await t.test('parts of one message that arrive together are joined once', async () => {
    const toSender = person();
    await Promise.all([1, 2, 3].map((part) => w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(11, 3, part), Buffer.from(`p${part} `)]) })));

    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['p1 p2 p3 ']);
  });

  await t.test('overdue parts looked at by two workers at once are delivered once', async () => {
    const toSender = person();
    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(4, 2, 1), Buffer.from('half')]) });
    const later = { ...w.service.deps, clock: () => w.service.deps.clock() + 301_000 };

    const counts = await Promise.all([deliverOverdueSmsParts(later, 300_000), deliverOverdueSmsParts(later, 300_000)]);

    assert.equal(counts[0] + counts[1], 1);
    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['half']);
  });

  await t.test('a reassembled message is queued as one sms.received webhook carrying the whole text', async () => {
    const toSender = person();
    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(12, 2, 1), Buffer.from('Where is ')]) });
    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(12, 2, 2), Buffer.from('my order?')]) });

    const rows = await w.service.deps.db.selectFrom('webhook_deliveries').select('payload').where('account_id', '=', w.accountId).where('type', '=', 'sms.received').execute();
    const posted = rows.map((row) => (JSON.parse(row.payload) as { data: Record<string, unknown> }).data).filter((data) => data['from'] === `+${toSender.source_addr}`);
    assert.deepStrictEqual(posted.map((data) => [data['channel'], data['to'], data['text']]), [['sms', '+4930123456', 'Where is my order?']]);
  });

  await t.test('a part the SMSC sends again is answered ESME_ROK and stored once', async () => {
    const toSender = person();
    const first = { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(7, 2, 1), Buffer.from('ab')]) };
    await w.smsc.sendMo('deliver_sm', first);
    const again = await w.smsc.sendMo('deliver_sm', first);
    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(7, 2, 2), Buffer.from('cd')]) });

    assert.equal(again.command_status, smpp.ESME_ROK);
    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['abcd']);
  });

  await t.test('a part sent again after its message was joined is answered, and not taken for the start of another', async () => {
    const toSender = person();
    const last = { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(5, 2, 2), Buffer.from('-end')]) };
    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(5, 2, 1), Buffer.from('start')]) });
    await w.smsc.sendMo('deliver_sm', last);
    const again = await w.smsc.sendMo('deliver_sm', last);
    await deliverOverdueSmsParts({ ...w.service.deps, clock: () => w.service.deps.clock() + 301_000 }, 300_000);

    assert.equal(again.command_status, smpp.ESME_ROK);
    assert.deepStrictEqual(await received(toSender), [{ from: `+${toSender.source_addr}`, to: '+4930123456', text: 'start-end', content: null }]);
  });

  await t.test('a new message that reuses the reference of one joined before is received too', async () => {
    const toSender = person();
    for (const [part, text] of [[1, 'old '], [2, 'one'], [1, 'new '], [2, 'one']] as const) {
      await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(6, 2, part), Buffer.from(text)]) });
    }
    assert.deepStrictEqual((await received(toSender)).map((m) => m.text), ['old one', 'new one']);
  });

  await t.test('parts that never complete are delivered as they are once the time-out has passed since the first', async () => {
    const toSender = person();
    const arrived = w.service.deps.clock();
    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(3, 3, 1), Buffer.from('one ')]) });
    await w.smsc.sendMo('deliver_sm', { ...toSender, esm_class: 0x40, short_message: Buffer.concat([udh8(3, 3, 3), Buffer.from('three')]) });
    const at = (ms: number) => ({ ...w.service.deps, clock: () => ms });

    assert.equal(await deliverOverdueSmsParts(at(arrived + 299_000), 300_000), 0);
    assert.equal(await deliverOverdueSmsParts(at(arrived + 301_000), 300_000), 1);

    assert.deepStrictEqual(await received(toSender), [{ from: `+${toSender.source_addr}`, to: '+4930123456', text: 'one three', content: { incomplete: true, parts: 2, of: 3 } }]);
  });
  await t.test('STOP from a handset is confirmed by SMS from the number written to, and the next send to it is dropped before the SMSC', async () => {
    const toSender = person();
    const resp = await w.smsc.sendMo('deliver_sm', { ...toSender, short_message: gsm([...Buffer.from(' Stop ')]) });
    assert.equal(resp.command_status, smpp.ESME_ROK);
    await w.service.worker.drain();
    const replies = w.smsc.submits.filter((submit) => submit.destinationAddr === toSender.source_addr);
    assert.deepStrictEqual(replies.map((r) => [r.sourceAddr, r.septets.toString('latin1')]), [
      ['4930123456', 'You have been unsubscribed and will receive no more messages from this number. Reply START to resubscribe.'],
    ]);
    const sent = await post(w.service, '/v1/sms/send', w.apiKey, { message: 'Sale today', mobile_numbers: [`+${toSender.source_addr}`] });
    await w.service.worker.drain();
    assert.deepStrictEqual([sent.statusCode, w.smsc.submits.filter((submit) => submit.destinationAddr === toSender.source_addr).length], [200, 1]);
  });
});

test('an MO message that cannot be recorded is answered ESME_RX_T_APPN, so the SMSC sends it again', async (t) => {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const bound = once(smsc.events, 'bind');
  const transport = smppTransport({
    url: smsc.url(),
    onReceipt: async () => {},
    onInbound: async () => {
      throw new Error('store unavailable');
    },
  });
  t.after(() => transport.close());
  await bound;

  const resp = await smsc.sendMo('deliver_sm', { source_addr: '4915112345678', destination_addr: '4930123456', short_message: Buffer.from('hi') });

  assert.equal(resp.command_status, smpp.ESME_RX_T_APPN);
});
