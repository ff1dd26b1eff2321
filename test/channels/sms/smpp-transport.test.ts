import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import smpp from 'smpp';
import { smppTransport, type SmppReceiptReport, type SmppTransportOptions } from '../../../src/channels/sms/smpp-transport.ts';
import type { SmppTiming } from '../../../src/channels/sms/smpp-session.ts';
import type { Outbound, SmsPayload } from '../../../src/domain/outbound.ts';
import { splitSegments } from '../../../src/domain/sms-request.ts';
import { startSmsc, type Smsc } from '../../peers/smsc.ts';
import { closedPort } from '../../support/closed-port.ts';

const FAST: Partial<SmppTiming> = { bindWaitMs: 1000, responseTimeoutMs: 1000, enquireLinkMs: 60_000, reconnectMinMs: 20, reconnectMaxMs: 100 };

function sms(text: string, recipient = '+4915112345678'): Outbound<SmsPayload> {
  return { msgid: '0198a3c0-0000-7000-8000-000000000001', accountId: 'acc', attempt: 1, recipient, payload: { text, segments: splitSegments(text) } };
}

const never = new AbortController().signal;

async function smscFor(t: TestContext): Promise<Smsc> {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  return smsc;
}

function transportFor(t: TestContext, url: string, options: Partial<SmppTransportOptions> = {}) {
  const reports: SmppReceiptReport[] = [];
  const transport = smppTransport({
    url,
    onReceipt: async (report) => {
      reports.push(report);
    },
    ...options,
    timing: { ...FAST, ...options.timing },
  });
  t.after(() => transport.close());
  return { transport, reports };
}

/** Polls until the condition holds (what the peer saw arrives asynchronously). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('a one-part message reaches the SMSC as unpacked GSM septets with a receipt requested', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url('?from=Herald'));

  const outcome = await transport.send(sms('Hi @ £5'), never);

  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: `127.0.0.1:${smsc.port}`, response: 'ESME_ROK (0x00000000) message_id smsc-1', providerRef: 'smsc-1' });
  assert.equal(smsc.submits.length, 1);
  const submit = smsc.submits[0];
  assert.deepStrictEqual(
    {
      source: [submit?.sourceAddr, submit?.sourceAddrTon, submit?.sourceAddrNpi],
      destination: [submit?.destinationAddr, submit?.destAddrTon, submit?.destAddrNpi],
      esmClass: submit?.esmClass, registeredDelivery: submit?.registeredDelivery, dataCoding: submit?.dataCoding, udh: submit?.udh,
    },
    { source: ['Herald', 5, 0], destination: ['4915112345678', 1, 1], esmClass: 0, registeredDelivery: 1, dataCoding: 0, udh: null },
  );
  assert.deepStrictEqual([...(submit?.shortMessage ?? [])], [0x48, 0x69, 0x20, 0x00, 0x20, 0x01, 0x35]);
});

test('a numeric sender goes as an international number', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url('?from=%2B4930123456'));

  await transport.send(sms('Hi'), never);

  assert.deepStrictEqual([smsc.submits[0]?.sourceAddr, smsc.submits[0]?.sourceAddrTon, smsc.submits[0]?.sourceAddrNpi], ['4930123456', 1, 1]);
});

test('a 200-character message arrives as two parts of 153 and 47 septets with a concatenation header', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());

  const outcome = await transport.send(sms('x'.repeat(200)), never);

  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: `127.0.0.1:${smsc.port}`, response: 'ESME_ROK (0x00000000) message_ids smsc-1, smsc-2', providerRef: 'smsc-1' });
  const [first, second] = smsc.submits;
  const reference = first?.udh?.[3];
  assert.equal(typeof reference, 'number');
  assert.deepStrictEqual([...(first?.udh ?? [])], [0x05, 0x00, 0x03, reference, 0x02, 0x01]);
  assert.deepStrictEqual([...(second?.udh ?? [])], [0x05, 0x00, 0x03, reference, 0x02, 0x02]);
  assert.deepStrictEqual([first?.septets.length, second?.septets.length], [153, 47]);
  assert.deepStrictEqual([first?.esmClass, second?.esmClass, first?.registeredDelivery, second?.registeredDelivery], [0x40, 0x40, 1, 1]);
  assert.ok(first?.septets.every((octet) => octet === 0x78));
});

test('a euro sign at the part boundary is not split from its escape', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());

  await transport.send(sms('a'.repeat(152) + '€' + 'b'.repeat(20)), never);

  const [first, second] = smsc.submits;
  assert.deepStrictEqual([first?.septets.length, second?.septets.length], [152, 22]);
  assert.equal(first?.septets.at(-1), 0x61);
  assert.deepStrictEqual([...(second?.septets.subarray(0, 3) ?? [])], [0x1b, 0x65, 0x62]);
});

test('a throttled submit is deferred with the status name', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());
  smsc.rejectNext(1, smpp.ESME_RTHROTTLED);

  const outcome = await transport.send(sms('Hi'), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'ESME_RTHROTTLED (0x00000058)' });
});

test('a full message queue at the SMSC is deferred', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());
  smsc.rejectNext(1, smpp.ESME_RMSGQFUL);

  const outcome = await transport.send(sms('Hi'), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'ESME_RMSGQFUL (0x00000014)' });
});

test('an invalid destination fails for good, having left the house', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());
  smsc.rejectNext(1, smpp.ESME_RINVDSTADR);

  const outcome = await transport.send(sms('Hi'), never);

  assert.deepStrictEqual(outcome, { kind: 'failed', peer: `127.0.0.1:${smsc.port}`, response: 'ESME_RINVDSTADR (0x0000000B)', leftTheHouse: true });
});

test('a throttled second part is deferred, naming the part', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());
  smsc.rejectNext(1, smpp.ESME_RTHROTTLED, { after: 1 });

  const outcome = await transport.send(sms('y'.repeat(200)), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'part 2 of 2: ESME_RTHROTTLED (0x00000058)' });
});

test('an SMSC that is down defers the message within the time-out', async (t) => {
  const port = await closedPort();
  const { transport } = transportFor(t, `smpp://herald:secret@127.0.0.1:${port}`);
  const started = Date.now();

  const outcome = await transport.send(sms('Hi'), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${port}`, response: `SMSC not reachable: connect ECONNREFUSED 127.0.0.1:${port}` });
  assert.ok(Date.now() - started < 1000);
});

test('an SMSC that never answers the bind defers the message after the bind wait', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  t.after(() => new Promise((resolve) => {
    for (const socket of sockets) socket.destroy();
    silent.close(resolve);
  }));
  const port = (silent.address() as AddressInfo).port;
  const { transport } = transportFor(t, `smpp://herald:secret@127.0.0.1:${port}`, { timing: { bindWaitMs: 100 } });

  const outcome = await transport.send(sms('Hi'), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${port}`, response: 'SMSC not reachable: not bound within 100 ms' });
});

test('a refused bind defers the message and never shows the password', async (t) => {
  const smsc = await smscFor(t);
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }));
  const { transport } = transportFor(t, `smpp://herald:wrong-pass-42@127.0.0.1:${smsc.port}`, { logger });

  const outcome = await transport.send(sms('Hi'), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'SMSC not reachable: bind refused: ESME_RBINDFAIL (0x0000000D)' });
  assert.ok(lines.length > 0);
  assert.ok(lines.every((line) => !line.includes('wrong-pass-42')));
});

test('a submit whose resp never comes is deferred after the time-out', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url(), { timing: { responseTimeoutMs: 100 } });
  smsc.ignoreNext(1);

  const outcome = await transport.send(sms('Hi'), never);

  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'no submit_sm_resp within 100 ms' });
});

test('a connection lost before the submit_sm_resp defers the message', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());
  smsc.hold();
  const sending = transport.send(sms('Hi'), never);
  await until(() => smsc.submits.length === 1, 'the submit');

  smsc.dropConnections();

  assert.deepStrictEqual(await sending, { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'SMSC connection lost before submit_sm_resp (connection closed)' });
});

test('the session binds again after the SMSC drops the connection', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());
  assert.equal((await transport.send(sms('one'), never)).kind, 'accepted');

  smsc.dropConnections();
  await until(() => smsc.binds.length === 2, 'a second bind');

  assert.equal((await transport.send(sms('two'), never)).kind, 'accepted');
  assert.deepStrictEqual(smsc.binds, ['herald', 'herald']);
});

test('the window limits how many submits wait for their resp', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url('?window=2&throughput=0'));
  assert.equal((await transport.send(sms('warm-up'), never)).kind, 'accepted');
  smsc.hold();

  const sending = Promise.all(['a', 'b', 'c', 'd'].map((text) => transport.send(sms(text), never)));
  await until(() => smsc.submits.length === 3, 'two submits');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(smsc.submits.length, 3);
  smsc.release();
  const outcomes = await sending;

  assert.deepStrictEqual(outcomes.map((outcome) => outcome.kind), ['accepted', 'accepted', 'accepted', 'accepted']);
  assert.equal(smsc.maxOutstanding, 2);
});

test('the throughput cap spaces submits out', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url('?throughput=20'));
  assert.equal((await transport.send(sms('warm-up'), never)).kind, 'accepted');
  const started = Date.now();

  await Promise.all(['a', 'b', 'c'].map((text) => transport.send(sms(text), never)));

  // 20 per second: one every 50 ms, so the third waits at least 100 ms.
  assert.ok(Date.now() - started >= 95, `took ${Date.now() - started} ms`);
});

test('an enquire_link goes out when the link is idle', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url(), { timing: { enquireLinkMs: 20 } });
  await transport.send(sms('Hi'), never);

  await until(() => smsc.enquireLinks >= 1, 'an enquire_link');

  assert.ok(smsc.enquireLinks >= 1);
});

test('a DELIVRD receipt reports delivered and is answered with deliver_sm_resp', async (t) => {
  const smsc = await smscFor(t);
  const { transport, reports } = transportFor(t, smsc.url());
  await transport.send(sms('Hi'), never);

  const resp = await smsc.sendReceipt('smsc-1', 'DELIVRD');

  assert.deepStrictEqual([resp.command, resp.command_status], ['deliver_sm_resp', 0]);
  assert.deepStrictEqual(reports, [{ providerRef: 'smsc-1', status: 'delivered', response: 'stat:DELIVRD err:000' }]);
});

test('an UNDELIV receipt reports failed', async (t) => {
  const smsc = await smscFor(t);
  const { transport, reports } = transportFor(t, smsc.url());
  await transport.send(sms('Hi'), never);

  await smsc.sendReceipt('smsc-1', 'UNDELIV', { err: '011' });

  assert.deepStrictEqual(reports, [{ providerRef: 'smsc-1', status: 'failed', response: 'stat:UNDELIV err:011' }]);
});

test('an ENROUTE receipt reports nothing but is answered', async (t) => {
  const smsc = await smscFor(t);
  const { transport, reports } = transportFor(t, smsc.url());
  await transport.send(sms('Hi'), never);

  const resp = await smsc.sendReceipt('smsc-1', 'ENROUTE');

  assert.deepStrictEqual([resp.command, resp.command_status, reports], ['deliver_sm_resp', 0, []]);
});

test('the receipted_message_id TLV names the message over the id in the text', async (t) => {
  const smsc = await smscFor(t);
  const { transport, reports } = transportFor(t, smsc.url());
  await transport.send(sms('Hi'), never);

  await smsc.sendReceipt('98765', 'DELIVRD', { receiptedMessageId: 'smsc-1' });

  assert.deepStrictEqual(reports, [{ providerRef: 'smsc-1', status: 'delivered', response: 'stat:DELIVRD err:000' }]);
});

test('a multipart message is reported delivered once every part is, under the first part id', async (t) => {
  const smsc = await smscFor(t);
  const { transport, reports } = transportFor(t, smsc.url());
  await transport.send(sms('z'.repeat(200)), never);

  await smsc.sendReceipt('smsc-2', 'DELIVRD');
  assert.deepStrictEqual(reports, []);
  await smsc.sendReceipt('smsc-1', 'DELIVRD');

  assert.deepStrictEqual(reports, [{ providerRef: 'smsc-1', status: 'delivered', response: 'stat:DELIVRD err:000' }]);
});

test('a part receipt that overtakes the next part resp still waits for every part', async (t) => {
  const smsc = await smscFor(t);
  const { transport, reports } = transportFor(t, smsc.url());
  await transport.send(sms('warm-up'), never);
  smsc.hold();
  const sending = transport.send(sms('z'.repeat(200)), never);
  await until(() => smsc.submits.length === 2, 'the first part');
  smsc.release();
  smsc.hold();
  await until(() => smsc.submits.length === 3, 'the second part');

  await smsc.sendReceipt('smsc-2', 'DELIVRD');
  smsc.release();
  assert.equal((await sending).kind, 'accepted');
  assert.deepStrictEqual(reports, []);
  await smsc.sendReceipt('smsc-3', 'DELIVRD');

  assert.deepStrictEqual(reports, [{ providerRef: 'smsc-2', status: 'delivered', response: 'stat:DELIVRD err:000' }]);
});

test('a multipart message is reported failed at its first failed part, once', async (t) => {
  const smsc = await smscFor(t);
  const { transport, reports } = transportFor(t, smsc.url());
  await transport.send(sms('z'.repeat(200)), never);

  await smsc.sendReceipt('smsc-2', 'EXPIRED');
  await smsc.sendReceipt('smsc-1', 'DELIVRD');

  assert.deepStrictEqual(reports, [{ providerRef: 'smsc-1', status: 'failed', response: 'stat:EXPIRED err:001' }]);
});

test('a receipt that cannot be recorded is answered so that the SMSC sends it again', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url(), { onReceipt: () => Promise.reject(new Error('database is locked')) });
  await transport.send(sms('Hi'), never);

  const resp = await smsc.sendReceipt('smsc-1', 'DELIVRD');

  assert.deepStrictEqual([resp.command, resp.command_status], ['deliver_sm_resp', smpp.ESME_RX_T_APPN]);
});

test('closing the transport unbinds from the SMSC', async (t) => {
  const smsc = await smscFor(t);
  const { transport } = transportFor(t, smsc.url());
  await transport.send(sms('Hi'), never);

  await transport.close();

  assert.equal(smsc.unbinds, 1);
  assert.deepStrictEqual(await transport.send(sms('Hi'), never), { kind: 'deferred', peer: `127.0.0.1:${smsc.port}`, response: 'SMSC not reachable: transport closed' });
});
