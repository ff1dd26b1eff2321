import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSmppUrl } from '../../../src/channels/sms/smpp-transport.ts';
import { ThroughputPacer, describeStatus } from '../../../src/channels/sms/smpp-session.ts';

test('an smpp URL gives the endpoint, a window of 10, 100 submits per second and the sender herald', () => {
  assert.deepStrictEqual(parseSmppUrl('smpp://sys%40id:p%3Ass@smsc.example.com'), {
    endpoint: { host: 'smsc.example.com', port: 2775, tls: false, systemId: 'sys@id', password: 'p:ss' },
    window: 10,
    throughput: 100,
    source: { addr: 'herald', ton: 5, npi: 0 },
  });
});

test('an smpps URL means TLS, on port 3550 unless another is given', () => {
  assert.deepStrictEqual(parseSmppUrl('smpps://a:b@smsc.example.com').endpoint, { host: 'smsc.example.com', port: 3550, tls: true, systemId: 'a', password: 'b' });
  assert.equal(parseSmppUrl('smpps://a:b@smsc.example.com:8775').endpoint.port, 8775);
});

test('window, throughput and from come from the query', () => {
  const settings = parseSmppUrl('smpp://a:b@127.0.0.1:2775?window=3&throughput=0.5&from=%2B4930123456');
  assert.deepStrictEqual([settings.window, settings.throughput, settings.source], [3, 0.5, { addr: '4930123456', ton: 1, npi: 1 }]);
});

test('a bad window is refused without echoing the URL', () => {
  assert.throws(() => parseSmppUrl('smpp://a:hunter2@127.0.0.1?window=0'), { message: 'HERALD_SMS_TRANSPORT: window must be a whole number from 1 to 1000' });
});

test('a sender longer than 11 characters is refused', () => {
  assert.throws(() => parseSmppUrl('smpp://a:b@127.0.0.1?from=HeraldMessaging'), { message: 'HERALD_SMS_TRANSPORT: from must be up to 11 letters and digits, or an international number' });
});

test('a command_status reads as its name and hex code', () => {
  assert.equal(describeStatus(0x0b), 'ESME_RINVDSTADR (0x0000000B)');
  assert.equal(describeStatus(0x0400), 'command_status 0x00000400');
});

test('the pacer spaces submits evenly at the rate', () => {
  let now = 1000;
  const pacer = new ThroughputPacer(100, () => now);
  assert.deepStrictEqual([pacer.reserve(), pacer.reserve(), pacer.reserve()], [0, 10, 20]);
  now = 1025;
  assert.equal(pacer.reserve(), 5);
  now = 2000;
  assert.equal(pacer.reserve(), 0);
});

test('a throughput of 0 does not pace', () => {
  const pacer = new ThroughputPacer(0, () => 0);
  assert.deepStrictEqual([pacer.reserve(), pacer.reserve()], [0, 0]);
});
