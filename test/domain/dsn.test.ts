// RFC 3464 delivery status notifications and the hard/soft rule, on field groups and
// on the fixtures written from the RFC's examples (read with mailparser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  bounceTypeOf, dsnBounce, dsnDelivery, msgidFromEnvelopeId, msgidFromMessageId, parseDeliveryStatus, recipientFor, replyStatusCode, statusFieldCode,
  type DeliveryStatus, type FieldGroup,
} from '../../src/domain/dsn.ts';
import { readInboundReport } from '../../src/inbound/report-reader.ts';

const MSGID = '01960000-0000-7000-8000-00000000abcd';

function fixture(name: string): Buffer {
  const text = readFileSync(new URL(`../fixtures/inbound/${name}`, import.meta.url), 'utf8')
    .replaceAll('{{VERP}}', `b+${MSGID}@bounces.herald.test`).replaceAll('{{MSGID}}', MSGID).replaceAll('{{BOUNCE_DOMAIN}}', 'bounces.herald.test')
    .replaceAll('{{MESSAGE_ID_HOST}}', 'herald.test').replaceAll('{{RECIPIENT}}', 'ana@example.org');
  return Buffer.from(text);
}

const group = (fields: Record<string, string>): FieldGroup => new Map(Object.entries(fields));

const RULES: readonly [string | null, number | undefined, 'hard' | 'soft'][] = [
  ['5.1.1', undefined, 'hard'], // bad mailbox
  ['5.1.2', undefined, 'hard'], // bad destination system
  ['5.0.0', undefined, 'hard'],
  ['5.2.1', undefined, 'hard'], // mailbox disabled
  ['5.4.1', undefined, 'hard'],
  ['5.2.2', undefined, 'soft'], // mailbox full
  ['5.2.3', undefined, 'soft'], // message too long for the mailbox
  ['5.3.4', undefined, 'soft'], // message too big for the system
  ['5.7.1', undefined, 'soft'], // policy: spam filter
  ['5.7.26', undefined, 'soft'], // DMARC
  ['4.0.0', undefined, 'soft'],
  ['4.4.7', undefined, 'soft'],
  [null, 550, 'hard'],
  [null, 554, 'hard'],
  [null, 552, 'soft'],
  [null, 450, 'soft'],
  [null, undefined, 'hard'],
];

for (const [status, reply, expected] of RULES) {
  test(`status ${status ?? 'none'}${reply === undefined ? '' : ` with reply ${reply}`} is a ${expected} bounce`, () => {
    assert.equal(bounceTypeOf(status, reply), expected);
  });
}

test('a Status field loses its comment and leading zeros', () => {
  assert.deepStrictEqual(
    ['5.0.0 (permanent failure)', '4.4.1', '5.01.001', ' 5.1.1', 'unknown', '6.1.1', ''].map(statusFieldCode),
    ['5.0.0', '4.4.1', '5.1.1', '5.1.1', null, null, null],
  );
});

test('an SMTP reply gives the enhanced code after its basic code, on single and multi-line replies', () => {
  assert.deepStrictEqual(
    ['550 5.1.1 user unknown', '550-5.1.1 first line\n550 5.1.1 second', '550 user unknown', '552 5.2.2', '250 OK'].map(replyStatusCode),
    ['5.1.1', '5.1.1', null, '5.2.2', null],
  );
});

test('a DSN failed recipient becomes bounce details with its Diagnostic-Code', () => {
  assert.deepStrictEqual(
    dsnBounce({ finalRecipient: 'ana@example.org', originalRecipient: null, action: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 no such user', remoteMta: null }),
    { bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 no such user', source: 'dsn' },
  );
});

test('a DSN recipient without Diagnostic-Code is described by its status', () => {
  assert.equal(dsnBounce({ finalRecipient: 'a@b.example', originalRecipient: null, action: 'failed', status: '5.0.0', diagnostic: null, remoteMta: null }).diagnostic, 'Status 5.0.0');
});

test('per-message fields come first; each recipient group is read with its address types stripped', () => {
  const parsed = parseDeliveryStatus([
    group({ 'reporting-mta': 'dns; mx.example.org', 'arrival-date': 'Thu, 1 May 2025 09:00:00 +0000' }),
    group({ 'final-recipient': 'rfc822; ana@example.org', action: 'Failed', status: '5.1.1', 'diagnostic-code': 'smtp; 550 5.1.1   no such user', 'remote-mta': 'dns; mx2.example.org' }),
  ]);
  assert.deepStrictEqual(parsed, {
    ok: true,
    value: {
      reportingMta: 'mx.example.org', originalEnvelopeId: null, arrivalDate: 'Thu, 1 May 2025 09:00:00 +0000',
      recipients: [{ finalRecipient: 'ana@example.org', originalRecipient: null, action: 'failed', status: '5.1.1', diagnostic: '550 5.1.1 no such user', remoteMta: 'mx2.example.org' }],
    },
  });
});

test('a report whose first group names a recipient is read without per-message fields', () => {
  const parsed = parseDeliveryStatus([group({ 'final-recipient': 'rfc822;ana@example.org', action: 'delayed', status: '4.4.1' })]);
  assert.equal(parsed.ok && parsed.value.recipients[0]?.action, 'delayed');
  assert.equal(parsed.ok && parsed.value.reportingMta, null);
});

test('the Original-Envelope-Id of the per-message fields is read as the ENVID it echoes', () => {
  const parsed = parseDeliveryStatus([
    group({ 'reporting-mta': 'dns; relay.example.net', 'original-envelope-id': ` ${MSGID}` }),
    group({ 'final-recipient': 'rfc822; ana@example.org', action: 'relayed', status: '2.0.0' }),
  ]);
  assert.equal(parsed.ok && parsed.value.originalEnvelopeId, MSGID);
});

test('a success notice becomes the delivered event\'s details: its action, status, the next hop\'s words and name', () => {
  assert.deepStrictEqual(
    dsnDelivery({ finalRecipient: 'ana@example.org', originalRecipient: 'ana@example.org', action: 'relayed', status: '2.0.0', diagnostic: '250 2.0.0 Ok: queued as 4XYZ', remoteMta: '127.0.0.1' }),
    { action: 'relayed', status_code: '2.0.0', diagnostic: '250 2.0.0 Ok: queued as 4XYZ', remote_mta: '127.0.0.1', source: 'dsn' },
  );
});

test('the msgid is read from an Original-Envelope-Id that is a msgid, and from nothing else', () => {
  assert.deepStrictEqual([MSGID.toUpperCase(), ` ${MSGID} `, 'QQ314159', `<${MSGID}@herald.test>`].map(msgidFromEnvelopeId), [MSGID, MSGID, null, null]);
});

const BROKEN: readonly [string, FieldGroup[], string][] = [
  ['no groups at all', [], 'delivery-status part is empty'],
  ['only per-message fields', [group({ 'reporting-mta': 'dns; mx.example.org' })], 'delivery-status has no per-recipient fields'],
  ['a recipient without Final-Recipient', [group({ 'reporting-mta': 'dns; x' }), group({ action: 'failed', status: '5.1.1' })], 'recipient 1: Final-Recipient missing'],
  ['a recipient with an unknown Action', [group({ 'reporting-mta': 'dns; x' }), group({ 'final-recipient': 'rfc822;a@b.example', action: 'bounced', status: '5.1.1' })], 'recipient 1: Action missing or not one of failed, delayed, delivered, relayed, expanded'],
  ['a recipient with a Status that is not x.y.z', [group({ 'reporting-mta': 'dns; x' }), group({ 'final-recipient': 'rfc822;a@b.example', action: 'failed', status: 'bad' })], 'recipient 1: Status missing or not x.y.z'],
];

for (const [what, groups, error] of BROKEN) {
  test(`a delivery-status with ${what} is refused with "${error}"`, () => {
    assert.deepStrictEqual(parseDeliveryStatus(groups), { ok: false, error });
  });
}

const THREE: DeliveryStatus = {
  reportingMta: null, originalEnvelopeId: null, arrivalDate: null,
  recipients: [
    { finalRecipient: 'other@example.org', originalRecipient: null, action: 'delayed', status: '4.0.0', diagnostic: null, remoteMta: null },
    { finalRecipient: 'forwarded@elsewhere.example', originalRecipient: 'Ana@Example.org', action: 'failed', status: '5.1.1', diagnostic: null, remoteMta: null },
    { finalRecipient: 'third@example.org', originalRecipient: null, action: 'relayed', status: '2.0.0', diagnostic: null, remoteMta: null },
  ],
};

test('the recipient a DSN speaks about is the one whose Final- or Original-Recipient is the message\'s, in any case', () => {
  assert.equal(recipientFor(THREE, 'ana@example.org')?.finalRecipient, 'forwarded@elsewhere.example');
});

test('with no recipient matching, the most severe verdict is taken: failed before delayed', () => {
  assert.equal(recipientFor(THREE, 'nobody@example.org')?.action, 'failed');
});

test('the msgid is read from a Message-ID of the form <msgid@host>', () => {
  assert.deepStrictEqual(
    [`<${MSGID}@herald.test>`, `${MSGID}@herald.test`, '<199407072116.RAA14128@cs.utk.example>', '<a@b@c>'].map(msgidFromMessageId),
    [MSGID, MSGID, null, null],
  );
});

// ---- the fixtures, read with mailparser ----

test('the RFC 3464 permanent-failure example reads as three recipients, ana failed with 5.0.0 and its folded diagnostic', async () => {
  const reading = await readInboundReport(fixture('dsn-failed-permanent.eml'));
  assert.equal(reading.kind, 'dsn');
  assert.ok('report' in reading && reading.kind === 'dsn');
  assert.equal(reading.report.recipients.length, 3);
  const recipient = recipientFor(reading.report, 'ana@example.org');
  assert.ok(recipient);
  assert.deepStrictEqual(dsnBounce(recipient), { bounce_type: 'hard', status_code: '5.0.0', diagnostic: "550 'ana@example.org' is not a registered gateway user", source: 'dsn' });
  assert.deepStrictEqual(reading.returned, { messageId: `<${MSGID}@herald.test>`, returnPath: null });
});

test('the RFC 3464 example that failed after five days of 4.0.0 is a soft bounce', async () => {
  const reading = await readInboundReport(fixture('dsn-failed-after-retries.eml'));
  assert.ok('report' in reading && reading.kind === 'dsn');
  const recipient = recipientFor(reading.report, 'ana@example.org');
  assert.ok(recipient);
  assert.deepStrictEqual(dsnBounce(recipient), { bounce_type: 'soft', status_code: '4.0.0', diagnostic: '426 connection timed out', source: 'dsn' });
});

test('a delayed DSN returning only headers (text/rfc822-headers) still names the Message-ID', async () => {
  const reading = await readInboundReport(fixture('dsn-delayed.eml'));
  assert.ok('report' in reading && reading.kind === 'dsn');
  assert.deepStrictEqual(reading.report, {
    reportingMta: 'sun2.nsfnet-relay.example', originalEnvelopeId: null, arrivalDate: 'Sat, 9 Jul 1994 10:00:00 +0100',
    recipients: [{ finalRecipient: 'ana@example.org', originalRecipient: null, action: 'delayed', status: '4.4.1', diagnostic: '421 4.4.1 mx.example.org: connection timed out', remoteMta: null }],
  });
  assert.deepStrictEqual(reading.returned, { messageId: `<${MSGID}@herald.test>`, returnPath: null });
});

const UNREADABLE: readonly [string, string, string][] = [
  ['dsn-truncated.eml', 'dsn', 'recipient 1: Action missing or not one of failed, delayed, delivered, relayed, expanded'],
  ['dsn-no-recipients.eml', 'dsn', 'delivery-status has no per-recipient fields'],
  ['garbage.eml', 'unknown', 'not a multipart/report (Content-Type missing)'],
  ['plain-text-bounce.eml', 'unknown', 'not a multipart/report (Content-Type missing)'],
];

for (const [name, kind, error] of UNREADABLE) {
  test(`${name} reads as ${kind} with the error "${error}"`, async () => {
    assert.deepStrictEqual(await readInboundReport(fixture(name)), { kind, error, returned: null });
  });
}

test('a multipart/report of another report-type is unknown', async () => {
  const raw = 'Content-Type: multipart/report; report-type=disposition-notification; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nread\r\n--b--\r\n';
  assert.deepStrictEqual(await readInboundReport(Buffer.from(raw)), {
    kind: 'unknown', error: 'report-type disposition-notification is neither delivery-status nor feedback-report', returned: null,
  });
});

test('a delivery-status report without its message/delivery-status part says so', async () => {
  const raw = 'Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nfailed\r\n--b--\r\n';
  assert.deepStrictEqual(await readInboundReport(Buffer.from(raw)), { kind: 'dsn', error: 'no message/delivery-status part', returned: null });
});
