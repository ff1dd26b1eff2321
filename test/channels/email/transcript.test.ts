// Evidence of certified delivery as the email transports collect it, against the real
// SMTP peer on loopback (and the loopback DNS peer for direct MX delivery).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Answer } from 'dns-packet';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { Outcome } from '../../../src/channels/channel.ts';
import { mxTransport, type MxResolver } from '../../../src/channels/email/mx-transport.ts';
import { smtpRelayTransport } from '../../../src/channels/email/smtp-transport.ts';
import { queueIdOf } from '../../../src/channels/email/transcript.ts';
import type { DeliveryEvidence } from '../../../src/domain/certificate.ts';
import { FIXED_TIME, MSGID, PAYLOAD, SETTINGS, VERP_FROM, dkimFixture, header, noAttachments, outbound, publishDkimKey, startDns, startSink } from './fixtures.ts';

const signal = new AbortController().signal;
const certified = outbound({ recipient: 'ana@example.test', payload: { ...PAYLOAD, certified: true } });
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const mx = (name: string, preference: number, exchange: string): Answer => ({ type: 'MX', name, ttl: 60, data: { preference, exchange } });
const a = (name: string, address: string): Answer => ({ type: 'A', name, ttl: 60, data: address });

function direct(t: TestContext, resolver: MxResolver, port: number, dkim = SETTINGS.dkim) {
  const transport = mxTransport({ ...SETTINGS, dkim, resolver, port, heloName: 'out.herald.example.com', resolveAttachments: noAttachments, random: () => 0 });
  t.after(() => transport.close());
  return transport;
}

async function mxSetup(t: TestContext) {
  const sink = await startSink(t);
  const { dns, resolver } = await startDns(t);
  dns.set('example.test', [mx('example.test', 10, 'mx1.example.test')]);
  dns.set('mx1.example.test', [a('mx1.example.test', '127.0.0.1')]);
  return { sink, dns, resolver };
}

function evidenceOf(outcome: Outcome): DeliveryEvidence {
  assert.equal(outcome.kind, 'accepted');
  assert.ok(outcome.kind === 'accepted' && outcome.evidence !== undefined, 'the outcome carries evidence');
  return outcome.evidence;
}

test('a certified message delivered to an MX host is accepted with evidence naming the host, its address and the times', async (t) => {
  const { sink, resolver } = await mxSetup(t);
  const outcome = await direct(t, resolver, sink.port).send(certified, signal);

  const evidence = evidenceOf(outcome);
  assert.deepStrictEqual(
    [outcome.peer, outcome.response, outcome.kind === 'accepted' && outcome.delivered],
    [`mx1.example.test[127.0.0.1]:${sink.port}`, '250 OK: message queued', true],
  );
  assert.deepStrictEqual(
    [evidence.delivery, evidence.host, evidence.ip, evidence.from, evidence.recipient, evidence.subject],
    ['mx', 'mx1.example.test', '127.0.0.1', 'news@example.com', 'ana@example.test', 'Your July letter'],
  );
  assert.deepStrictEqual([evidence.smtpResponse, evidence.queueId, evidence.connectedAt, evidence.acceptedAt], ['250 OK: message queued', null, FIXED_TIME, FIXED_TIME]);
});

test('the evidence hashes exactly the bytes the MX host received', async (t) => {
  const { sink, resolver } = await mxSetup(t);
  const evidence = evidenceOf(await direct(t, resolver, sink.port).send(certified, signal));

  const received = sink.messages[0]?.raw ?? Buffer.alloc(0);
  assert.ok(Buffer.from(evidence.mime).equals(received));
  assert.equal(evidence.sha256, sha256(received));
});

test('the transcript holds the whole session: greeting, EHLO, STARTTLS, envelope, DATA and the 250 reply', async (t) => {
  const { sink, resolver } = await mxSetup(t);
  const { transcript } = evidenceOf(await direct(t, resolver, sink.port).send(certified, signal));

  const commands = transcript.filter((line) => line.startsWith('C: ') || line.startsWith('* '));
  assert.deepStrictEqual(commands, [
    `* connected to 127.0.0.1 port ${sink.port}`,
    'C: EHLO out.herald.example.com',
    'C: STARTTLS',
    '* TLS started (STARTTLS)',
    'C: EHLO out.herald.example.com',
    `C: MAIL FROM:<${VERP_FROM}>`,
    'C: RCPT TO:<ana@example.test>',
    'C: DATA',
    `C: [message, ${sink.messages[0]?.raw.length} bytes]`,
    'C: .',
  ]);
  assert.match(transcript[1] ?? '', /^S: 220 /);
  assert.equal(transcript.at(-1), 'S: 250 OK: message queued');
});

test('a certified message signed with DKIM is hashed with its signature, which verifies at the receiver', async (t) => {
  const { sink, dns, resolver } = await mxSetup(t);
  const key = dkimFixture();
  publishDkimKey(dns, key);
  const evidence = evidenceOf(await direct(t, resolver, sink.port, key.lookup).send(certified, signal));

  const received = sink.messages[0]?.raw ?? Buffer.alloc(0);
  assert.match(header(Buffer.from(evidence.mime), 'DKIM-Signature') ?? '', /d=example\.com/);
  assert.equal(evidence.sha256, sha256(received));
  const result = await dkimVerify(received, { resolver: (name, type) => resolver.resolve(name, type) as Promise<string[][]> });
  assert.deepStrictEqual(result.results.map((r) => r.status.result), ['pass']);
});

test('a certified message takes an MX connection of its own while other messages share the pooled one', async (t) => {
  const { sink, resolver } = await mxSetup(t);
  const transport = direct(t, resolver, sink.port);
  const plain = outbound({ recipient: 'bob@example.test' });
  await transport.send(plain, signal);
  await transport.send(certified, signal);
  await transport.send(plain, signal);

  assert.deepStrictEqual(sink.messages.map((m) => m.connection), [1, 2, 1]);
});

test('a certified message the MX host refuses is a bounce without evidence', async (t) => {
  const { sink, resolver } = await mxSetup(t);
  sink.failNext({ stage: 'rcpt', code: 550, message: '5.1.1 <ana@example.test>: user unknown' });
  const outcome = await direct(t, resolver, sink.port).send(certified, signal);

  assert.deepStrictEqual(
    [outcome.kind, outcome.response, outcome.kind === 'failed' && outcome.bounced, 'evidence' in outcome],
    ['failed', '550 5.1.1 <ana@example.test>: user unknown', true, false],
  );
});

test('the relay transcript keeps AUTH and its mechanism but neither the user name nor the password, in any encoding', async (t) => {
  const user = 'relay-user';
  const pass = 'right-password';
  const sink = await startSink(t, { auth: { user, pass } });
  const transport = smtpRelayTransport({
    ...SETTINGS, url: `smtp://${user}:${pass}@127.0.0.1:${sink.port}`, resolveAttachments: noAttachments, tls: { rejectUnauthorized: false },
  });
  t.after(() => transport.close());
  const evidence = evidenceOf(await transport.send(certified, signal));

  assert.deepStrictEqual([evidence.delivery, evidence.host, evidence.ip], ['relay', '127.0.0.1', '127.0.0.1']);
  assert.ok(evidence.transcript.includes('C: AUTH PLAIN ***'));
  assert.ok(evidence.transcript.includes('S: 235 Authentication successful'));
  const text = evidence.transcript.join('\n');
  for (const secret of [user, pass, Buffer.from(user).toString('base64'), Buffer.from(`\0${user}\0`).toString('base64').slice(0, 12)]) {
    assert.ok(!text.includes(secret), `the transcript holds ${secret}`);
  }
});

test('a message sent without certified carries no evidence', async (t) => {
  const { sink, resolver } = await mxSetup(t);
  const outcome = await direct(t, resolver, sink.port).send(outbound({ recipient: 'ana@example.test' }), signal);
  assert.equal(outcome.kind === 'accepted' && 'evidence' in outcome, false);
});

test('queue ids are read from the 250 replies of the common servers, and none is made up for other replies', () => {
  assert.deepStrictEqual(
    [
      '250 2.0.0 Ok: queued as 4F9A61C0123',
      '250 OK id=1rAbCd-0001Ab-2X',
      '250 2.0.0 OK  1719835200 d9443c01a7336-1f6a3c1a2b3si123456 - gsmtp',
      '250 2.0.0 46TC0abc012345 Message accepted for delivery',
      '250 Message Queued (8A4B2C1D-1111-2222-3333-444455556666.1)',
      '250 OK: message queued',
      '250 Accepted',
    ].map(queueIdOf),
    ['4F9A61C0123', '1rAbCd-0001Ab-2X', 'd9443c01a7336-1f6a3c1a2b3si123456', '46TC0abc012345', '8A4B2C1D-1111-2222-3333-444455556666.1', null, null],
  );
});
