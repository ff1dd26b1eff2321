// RFC 5965 feedback reports: the fields a complaint carries, which feedback types
// are complaints, and the RFC's own example read with mailparser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { complaintDetails, isComplaint, parseFeedbackReport, type FeedbackReport } from '../../src/domain/arf.ts';
import { readInboundReport } from '../../src/inbound/report-reader.ts';

const MSGID = '01960000-0000-7000-8000-00000000abcd';

function fixture(name: string): Buffer {
  const text = readFileSync(new URL(`../fixtures/inbound/${name}`, import.meta.url), 'utf8')
    .replaceAll('{{VERP}}', `b+${MSGID}@bounces.herald.test`).replaceAll('{{MSGID}}', MSGID).replaceAll('{{BOUNCE_DOMAIN}}', 'bounces.herald.test')
    .replaceAll('{{MESSAGE_ID_HOST}}', 'herald.test').replaceAll('{{RECIPIENT}}', 'ana@example.org');
  return Buffer.from(text);
}

const REPORT: FeedbackReport = {
  feedbackType: 'abuse', userAgent: 'SomeGenerator/1.0', version: '1',
  originalMailFrom: `<b+${MSGID}@bounces.herald.test>`, originalRcptTo: '<ana@example.org>',
  arrivalDate: 'Thu, 8 Mar 2005 14:00:00 EDT', reportingMta: 'mail.example.net', sourceIp: '192.0.2.1',
};

test('the RFC 5965 example reads as an abuse report with its envelope, and the returned message\'s ids', async () => {
  const reading = await readInboundReport(fixture('arf-abuse.eml'));
  assert.deepStrictEqual(reading, {
    kind: 'arf', report: REPORT,
    returned: { messageId: `<${MSGID}@herald.test>`, returnPath: `b+${MSGID}@bounces.herald.test` },
  });
});

test('abuse, fraud and virus reports are complaints', () => {
  assert.deepStrictEqual(['abuse', 'fraud', 'virus'].map((feedbackType) => isComplaint({ ...REPORT, feedbackType })), [true, true, true]);
});

test('not-spam, auth-failure and other reports are not complaints', () => {
  assert.deepStrictEqual(['not-spam', 'auth-failure', 'other'].map((feedbackType) => isComplaint({ ...REPORT, feedbackType })), [false, false, false]);
});

test('a complaint event carries the feedback type, the reporter and the arrival date', () => {
  assert.deepStrictEqual(complaintDetails(REPORT), {
    feedback_type: 'abuse', user_agent: 'SomeGenerator/1.0', arrival_date: 'Thu, 8 Mar 2005 14:00:00 EDT', reporting_mta: 'mail.example.net', source: 'arf',
  });
});

test('Feedback-Type is lower-cased; the optional fields default to null', () => {
  assert.deepStrictEqual(parseFeedbackReport(new Map([['feedback-type', 'Abuse']])), {
    ok: true,
    value: { feedbackType: 'abuse', userAgent: null, version: null, originalMailFrom: null, originalRcptTo: null, arrivalDate: null, reportingMta: null, sourceIp: null },
  });
});

test('a report without Feedback-Type is refused', () => {
  assert.deepStrictEqual(parseFeedbackReport(new Map([['user-agent', 'x/1']])), { ok: false, error: 'feedback-report: Feedback-Type missing' });
});

test('a feedback report without its message/feedback-report part says so', async () => {
  const raw = 'Content-Type: multipart/report; report-type=feedback-report; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nspam\r\n--b--\r\n';
  assert.deepStrictEqual(await readInboundReport(Buffer.from(raw)), { kind: 'arf', error: 'no message/feedback-report part', returned: null });
});
