import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifySmtpError, replyClass, smtpErrorOutcome, smtpSentOutcome } from '../../../src/channels/email/smtp-outcome.ts';

// Errors shaped as nodemailer reports them (code, command, response, responseCode, originalCode).
const PEER = 'mx1.example.org[192.0.2.10]:25';

/** A nodemailer error for a reply: response starts with its code. */
function replyError(command: string, response: string, code = 'EENVELOPE'): Error {
  return Object.assign(new Error(`failed: ${response}`), { code, command, response, responseCode: Number(response.slice(0, 3)) });
}

test('a 250 after DATA is accepted with the peer words and without delivered for a relay', () => {
  const outcome = smtpSentOutcome({ accepted: ['ana@example.org'], rejected: [], response: '250 2.0.0 Ok: queued as 4AB12C' }, PEER, false);
  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: PEER, response: '250 2.0.0 Ok: queued as 4AB12C' });
});

test('a 250 after DATA from the recipient MX is accepted as delivered', () => {
  const outcome = smtpSentOutcome({ accepted: ['ana@example.org'], rejected: [], response: '250 OK' }, PEER, true);
  assert.deepStrictEqual(outcome, { kind: 'accepted', peer: PEER, response: '250 OK', delivered: true });
});

test('a 4xx to RCPT TO is deferred with the peer words', () => {
  assert.deepStrictEqual(smtpErrorOutcome(replyError('RCPT TO', '450 4.2.0 <ana@example.org>: mailbox busy'), PEER), {
    kind: 'deferred', peer: PEER, response: '450 4.2.0 <ana@example.org>: mailbox busy',
  });
});

test('a 5xx to RCPT TO is a bounce that left the house, with the peer words', () => {
  assert.deepStrictEqual(smtpErrorOutcome(replyError('RCPT TO', '550 5.1.1 <ana@example.org>: user unknown'), PEER), {
    kind: 'failed', peer: PEER, response: '550 5.1.1 <ana@example.org>: user unknown', leftTheHouse: true, bounced: true,
    details: { bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <ana@example.org>: user unknown', source: 'smtp' },
  });
});

test('a 5xx after the message data is a bounce that left the house', () => {
  assert.deepStrictEqual(smtpErrorOutcome(replyError('DATA', '554 5.7.1 message content rejected', 'EMESSAGE'), PEER), {
    kind: 'failed', peer: PEER, response: '554 5.7.1 message content rejected', leftTheHouse: true, bounced: true,
    details: { bounce_type: 'soft', status_code: '5.7.1', diagnostic: '554 5.7.1 message content rejected', source: 'smtp' },
  });
});

test('a 5xx to MAIL FROM fails the message as seen by the peer but not bounced by the recipient', () => {
  assert.deepStrictEqual(smtpErrorOutcome(replyError('MAIL FROM', '553 5.7.1 sender address rejected'), PEER), {
    kind: 'failed', peer: PEER, response: '553 5.7.1 sender address rejected', leftTheHouse: true,
  });
});

test('503 bad sequence is deferred although it is a 5xx', () => {
  assert.equal(replyClass(503), 'transient');
  assert.equal(smtpErrorOutcome(replyError('RCPT TO', '503 5.5.1 bad sequence of commands'), PEER).kind, 'deferred');
});

test('a 5xx at the greeting is deferred: it judges the session, not the message', () => {
  assert.deepStrictEqual(smtpErrorOutcome(replyError('CONN', '554 5.7.1 your IP is listed', 'EPROTOCOL'), PEER), {
    kind: 'deferred', peer: PEER, response: '554 5.7.1 your IP is listed',
  });
});

test('refused relay credentials are deferred with the peer words', () => {
  assert.deepStrictEqual(smtpErrorOutcome(replyError('AUTH PLAIN', '535 5.7.8 Authentication credentials invalid', 'EAUTH'), PEER), {
    kind: 'deferred', peer: PEER, response: '535 5.7.8 Authentication credentials invalid',
  });
});

const NO_REPLY_ERRORS: readonly [string, Record<string, unknown>, string][] = [
  ['a refused connection', { code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN', message: 'connect ECONNREFUSED 192.0.2.10:25' }, 'ESOCKET ECONNREFUSED: connect ECONNREFUSED 192.0.2.10:25'],
  ['a reset connection', { code: 'ESOCKET', originalCode: 'ECONNRESET', message: 'read ECONNRESET' }, 'ESOCKET ECONNRESET: read ECONNRESET'],
  ['a greeting that never came', { code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT', command: 'CONN', message: 'Greeting never received' }, 'ETIMEDOUT: Greeting never received'],
  ['a host name that did not resolve', { code: 'EDNS', originalCode: 'EAI_AGAIN', message: 'getaddrinfo EAI_AGAIN relay.example.net' }, 'EDNS EAI_AGAIN: getaddrinfo EAI_AGAIN relay.example.net'],
  ['a failed TLS upgrade', { code: 'ETLS', command: 'STARTTLS', message: 'Error initiating TLS' }, 'ETLS: Error initiating TLS'],
  ['a closed connection', { code: 'ECONNECTION', command: 'CONN', message: 'Connection closed unexpectedly' }, 'ECONNECTION: Connection closed unexpectedly'],
  ['an unknown failure', { code: 'ESOMETHINGNEW', message: 'surprise' }, 'ESOMETHINGNEW: surprise'],
];

for (const [what, fields, response] of NO_REPLY_ERRORS) {
  test(`${what} is deferred and described by its codes and message`, () => {
    const error = Object.assign(new Error(String(fields.message)), fields);
    assert.deepStrictEqual(smtpErrorOutcome(error, PEER), { kind: 'deferred', peer: PEER, response });
  });
}

test('an address nodemailer will not put in an envelope fails without leaving the house', () => {
  const error = Object.assign(new Error('Invalid recipient "a b@example.org"'), { code: 'EENVELOPE', command: 'API' });
  assert.deepStrictEqual(smtpErrorOutcome(error, PEER), { kind: 'failed', peer: PEER, response: 'EENVELOPE: Invalid recipient "a b@example.org"', leftTheHouse: false });
});

test('a message over the size the peer advertised fails without leaving the house', () => {
  const error = Object.assign(new Error('Message size larger than allowed 1000'), { code: 'EMESSAGE', command: 'MAIL FROM' });
  assert.deepStrictEqual(smtpErrorOutcome(error, PEER), { kind: 'failed', peer: PEER, response: 'EMESSAGE: Message size larger than allowed 1000', leftTheHouse: false });
});

test('a failure without a reply is classified as having no reply', () => {
  assert.deepStrictEqual(classifySmtpError(Object.assign(new Error('x'), { code: 'ESOCKET' })), { verdict: { kind: 'deferred' }, stage: 'no reply' });
});

test('a reply is classified by the stage of the command it answered', () => {
  assert.deepStrictEqual(classifySmtpError(replyError('EHLO', '421 4.3.2 try later')), { verdict: { kind: 'deferred' }, stage: 'session' });
});

test('a recipient refused beside an accepted DATA is still judged by its refusal', () => {
  const refusal = replyError('RCPT TO', '550 5.1.1 <ana@example.org>: user unknown');
  const outcome = smtpSentOutcome({ accepted: [], rejected: ['ana@example.org'], rejectedErrors: [refusal], response: '250 OK' }, PEER, true);
  assert.deepStrictEqual(outcome, {
    kind: 'failed', peer: PEER, response: '550 5.1.1 <ana@example.org>: user unknown', leftTheHouse: true, bounced: true,
    details: { bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <ana@example.org>: user unknown', source: 'smtp' },
  });
});

// ---- hard or soft: what a bounce carries for its event ----

/** The details of the bounce a reply to RCPT TO makes. */
function bounceOf(response: string): unknown {
  const outcome = smtpErrorOutcome(replyError('RCPT TO', response), PEER);
  return outcome.kind === 'failed' ? outcome.details : undefined;
}

test('an unknown mailbox (5.1.1) is a hard bounce', () => {
  assert.deepStrictEqual(bounceOf('550 5.1.1 <ana@example.org>: Recipient address rejected: User unknown'), {
    bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <ana@example.org>: Recipient address rejected: User unknown', source: 'smtp',
  });
});

test('a full mailbox (5.2.2) is a soft bounce', () => {
  assert.deepStrictEqual(bounceOf('552 5.2.2 <ana@example.org>: mailbox full'), {
    bounce_type: 'soft', status_code: '5.2.2', diagnostic: '552 5.2.2 <ana@example.org>: mailbox full', source: 'smtp',
  });
});

test('a message too large for the mailbox or the system (5.2.3, 5.3.4) is a soft bounce', () => {
  assert.deepStrictEqual([bounceOf('552 5.2.3 message too long'), bounceOf('552 5.3.4 message size exceeds fixed limit')].map((d) => (d as { bounce_type: string }).bounce_type), ['soft', 'soft']);
});

test('a policy refusal (5.7.x: spam filter, DMARC, a listed IP) is a soft bounce: the address is not to blame', () => {
  assert.deepStrictEqual(bounceOf("550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy"), {
    bounce_type: 'soft', status_code: '5.7.26', diagnostic: "550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy", source: 'smtp',
  });
});

test('a 5xx without an enhanced code is a hard bounce with a null status_code', () => {
  assert.deepStrictEqual(bounceOf('550 No such user here'), { bounce_type: 'hard', status_code: null, diagnostic: '550 No such user here', source: 'smtp' });
});

test('552 without an enhanced code (storage exceeded) is a soft bounce', () => {
  assert.deepStrictEqual(bounceOf('552 Requested mail action aborted: exceeded storage allocation'), {
    bounce_type: 'soft', status_code: null, diagnostic: '552 Requested mail action aborted: exceeded storage allocation', source: 'smtp',
  });
});

test('a multi-line reply is read from its first line and kept whole as the diagnostic', () => {
  const reply = "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550 5.1.1 double-checking the recipient's email address for typos.";
  assert.deepStrictEqual(bounceOf(reply), { bounce_type: 'hard', status_code: '5.1.1', diagnostic: reply, source: 'smtp' });
});

test('a refused sender or an unsendable message carries no bounce details', () => {
  const refused = smtpErrorOutcome(replyError('MAIL FROM', '553 5.7.1 sender address rejected'), PEER);
  assert.equal(refused.kind === 'failed' ? refused.details : 'not failed', undefined);
});
