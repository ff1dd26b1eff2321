// Every MX name here lives under .test and resolves only through the loopback DNS peer,
// to 127.0.0.1 (the sink) or 127.0.0.2 (loopback too, where nothing listens).

import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import type { Answer } from 'dns-packet';
import { mxTransport, type MxResolver, type MxTransportOptions } from '../../../src/channels/email/mx-transport.ts';
import { MSGID, SETTINGS, VERP_FROM, noAttachments, outbound, startDns, startSink } from './fixtures.ts';

const signal = new AbortController().signal;

const mx = (name: string, preference: number, exchange: string): Answer => ({ type: 'MX', name, ttl: 60, data: { preference, exchange } });
const a = (name: string, address: string): Answer => ({ type: 'A', name, ttl: 60, data: address });

function transport(t: TestContext, resolver: MxResolver, port: number, options: Partial<MxTransportOptions> = {}) {
  const delivery = mxTransport({
    ...SETTINGS, resolver, port, heloName: 'out.herald.example.com', resolveAttachments: noAttachments,
    timeouts: { connectionTimeout: 2000, greetingTimeout: 2000 }, random: () => 0, ...options,
  });
  t.after(() => delivery.close());
  return delivery;
}

test('a message is delivered to the MX host of lowest preference', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 20, 'mx2.example.test'), mx('example.test', 10, 'mx1.example.test')]);
  dns.set('mx1.example.test', [a('mx1.example.test', '127.0.0.1')]);
  dns.set('mx2.example.test', [a('mx2.example.test', '127.0.0.1')]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: `mx1.example.test[127.0.0.1]:${sink.port}`, response: '250 OK: message queued', delivered: true });
});

test('the MX host receives the VERP envelope sender, the recipient alone and our EHLO name over STARTTLS', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'mx1.example.test')]);
  dns.set('mx1.example.test', [a('mx1.example.test', '127.0.0.1')]);
  await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  const [received] = sink.messages;
  assert.deepStrictEqual(
    [received?.mailFrom, received?.rcptTo, received?.heloName, received?.secure],
    [VERP_FROM, ['ana@example.test'], 'out.herald.example.com', true],
  );
});

test('when the first MX host refuses connections the next one gets the message', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'down.example.test'), mx('example.test', 20, 'up.example.test')]);
  dns.set('down.example.test', [a('down.example.test', '127.0.0.2')]);
  dns.set('up.example.test', [a('up.example.test', '127.0.0.1')]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: `up.example.test[127.0.0.1]:${sink.port}`, response: '250 OK: message queued', delivered: true });
});

test('a domain without MX records gets its mail at its own address', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('plain.test', [a('plain.test', '127.0.0.1')]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@plain.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: `plain.test[127.0.0.1]:${sink.port}`, response: '250 OK: message queued', delivered: true });
});

test('a domain with a null MX fails for good without the message leaving the house', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('nomail.test', [mx('nomail.test', 0, '.'), a('nomail.test', '127.0.0.1')]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@nomail.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'failed', peer: 'nomail.test', response: 'nomail.test accepts no mail (null MX, RFC 7505)', leftTheHouse: false });
  assert.equal(sink.connections(), 0);
});

test('a domain that does not exist fails for good without the message leaving the house', async (t) => {
  const sink = await startSink(t);
  const { resolver } = await startDns(t);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@nowhere.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'failed', peer: 'nowhere.test', response: 'nowhere.test does not exist (ENOTFOUND)', leftTheHouse: false });
});

test('a domain with neither MX nor address fails for good without the message leaving the house', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('bare.test', [{ type: 'TXT', name: 'bare.test', ttl: 60, data: ['v=spf1 -all'] }]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@bare.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'failed', peer: 'bare.test', response: 'bare.test has no MX and no address', leftTheHouse: false });
});

test('a DNS server that cannot answer defers the message', async (t) => {
  const sink = await startSink(t);
  // Nothing listens on port 1 of loopback: the look-up is refused.
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers(['127.0.0.1:1']);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: 'example.test', response: 'MX look-up of example.test failed (ECONNREFUSED)' });
});

test('two recipients of the same domain share one connection to its MX host', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'mx1.example.test')]);
  dns.set('mx1.example.test', [a('mx1.example.test', '127.0.0.1')]);
  const delivery = transport(t, resolver, sink.port);
  await delivery.send(outbound({ recipient: 'ana@example.test' }), signal);
  await delivery.send(outbound({ recipient: 'bob@example.test' }), signal);
  assert.deepStrictEqual(sink.messages.map((m) => [m.rcptTo, m.connection]), [[['ana@example.test'], 1], [['bob@example.test'], 1]]);
  assert.equal(sink.connections(), 1);
});

test('a 550 from the MX host to RCPT TO is a bounce with its words', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'mx1.example.test')]);
  dns.set('mx1.example.test', [a('mx1.example.test', '127.0.0.1')]);
  sink.failNext({ stage: 'rcpt', code: 550, message: '5.1.1 <ana@example.test>: user unknown' });
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, {
    kind: 'failed', peer: `mx1.example.test[127.0.0.1]:${sink.port}`, response: '550 5.1.1 <ana@example.test>: user unknown', leftTheHouse: true, bounced: true,
    details: { bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <ana@example.test>: user unknown', source: 'smtp' },
  });
});

test('a 450 from the first MX host to RCPT TO defers the message without trying the next', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'mx1.example.test'), mx('example.test', 20, 'mx2.example.test')]);
  dns.set('mx1.example.test', [a('mx1.example.test', '127.0.0.1')]);
  dns.set('mx2.example.test', [a('mx2.example.test', '127.0.0.1')]);
  sink.failNext({ stage: 'rcpt', code: 450, message: '4.7.1 greylisted, try again later' });
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: `mx1.example.test[127.0.0.1]:${sink.port}`, response: '450 4.7.1 greylisted, try again later' });
  assert.equal(sink.messages.length, 0);
});

test('when every MX host refuses connections the message is deferred with the last refusal', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'mx1.example.test')]);
  dns.set('mx1.example.test', [a('mx1.example.test', '127.0.0.2')]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, {
    kind: 'deferred', peer: `mx1.example.test[127.0.0.2]:${sink.port}`, response: `ESOCKET ECONNREFUSED: connect ECONNREFUSED 127.0.0.2:${sink.port}`,
  });
});

test('an MX host without an address is skipped for the next one', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'gone.example.test'), mx('example.test', 20, 'mx2.example.test')]);
  dns.set('mx2.example.test', [a('mx2.example.test', '127.0.0.1')]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: `mx2.example.test[127.0.0.1]:${sink.port}`, response: '250 OK: message queued', delivered: true });
});

test('MX hosts that all lack an address defer the message', async (t) => {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'gone.example.test')]);
  const outcome = await transport(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.deepStrictEqual(outcome, { kind: 'deferred', peer: 'example.test', response: 'gone.example.test has no A or AAAA record' });
});
