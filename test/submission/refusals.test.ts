// SMTP submission's refusals (docs/smtp-submission.md), each at the step that can first
// answer it, with its reply to the letter: the API's text for the API's guard. A bare
// SMTP conversation (test/support/smtp-talk.ts) so that each reply is read exactly.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { listLedger } from '../../src/store/ledger.ts';
import { addSuppression } from '../../src/store/suppressions.ts';
import type { Service } from '../../src/service.ts';
import { plainAuth, smtpTalk, type SmtpTalk } from '../support/smtp-talk.ts';
import { keyWithScopes, openAccount, readAccount, startService, type TestAccount } from '../support/service.ts';

const LOOPBACK = { HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSION_HOST: '127.0.0.1' };

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly port: number;
}

async function world(t: TestContext, env: Record<string, string> = {}, account: Parameters<typeof openAccount>[1] = {}): Promise<World> {
  const service = await startService(t, { env: { ...LOOPBACK, ...env } });
  const opened = await openAccount(service, account);
  return { service, account: opened, port: service.submission?.starttlsPort ?? 0 };
}

/** A connection that has said EHLO and authenticated with `key`; the AUTH reply is asserted. */
async function signedIn(t: TestContext, w: World, key = w.account.apiKey): Promise<SmtpTalk> {
  const talk = await smtpTalk(w.port);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  assert.equal(await talk.say(`AUTH PLAIN ${plainAuth('apikey', key)}`), '235 2.7.0 Authentication successful');
  return talk;
}

const message = (from = 'news@example.com', extra = ''): string =>
  `From: News <${from}>\r\nTo: ana@example.org\r\nSubject: Hello\r\n${extra}\r\nIt works.\r\n.\r\n`;

/** DATA and the message; the reply to its end. */
async function data(talk: SmtpTalk, body: string): Promise<string> {
  assert.equal(await talk.say('DATA'), '354 End data with <CR><LF>.<CR><LF>');
  talk.write(body);
  return talk.reply();
}

test('a wrong key answers 535 5.7.8 with the API\'s text', async (t) => {
  const w = await world(t);
  const talk = await smtpTalk(w.port);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  assert.equal(await talk.say(`AUTH PLAIN ${plainAuth('apikey', 'not-a-key')}`), '535 5.7.8 Invalid API Key ');
});

test('AUTH LOGIN with a wrong key answers the same 535', async (t) => {
  const w = await world(t);
  const talk = await smtpTalk(w.port);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  assert.equal(await talk.say('AUTH LOGIN'), '334 VXNlcm5hbWU6');
  assert.equal(await talk.say(Buffer.from('apikey').toString('base64')), '334 UGFzc3dvcmQ6');
  assert.equal(await talk.say(Buffer.from('wrong').toString('base64')), '535 5.7.8 Invalid API Key ');
});

test('after 10 failed AUTHs in a minute an address waits, even with the right key', async (t) => {
  const w = await world(t);
  const talk = await smtpTalk(w.port);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  const replies: string[] = [];
  for (let i = 0; i < 10; i++) replies.push(await talk.say(`AUTH PLAIN ${plainAuth('apikey', `guess-${i}`)}`));
  assert.deepStrictEqual(new Set(replies), new Set(['535 5.7.8 Invalid API Key ']));
  const again = await smtpTalk(w.port);
  t.after(() => again.end());
  await again.say('EHLO client.test');
  assert.equal(
    await again.say(`AUTH PLAIN ${plainAuth('apikey', w.account.apiKey)}`),
    '454 4.7.0 Too many failed authentication attempts from this address, try again in a minute',
  );
});

test('a key without the email scope answers 535 API key not authorized.', async (t) => {
  const w = await world(t);
  const smsKey = await keyWithScopes(w.service, w.account.id, ['sms']);
  const talk = await smtpTalk(w.port);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  assert.equal(await talk.say(`AUTH PLAIN ${plainAuth('apikey', smsKey)}`), '535 5.7.8 API key not authorized.');
});

test('a connection address outside the account\'s allow-list answers 535 IP Not Allowed', async (t) => {
  const w = await world(t, {}, { ipAllowList: ['10.1.2.0/24'] });
  const talk = await smtpTalk(w.port);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  assert.equal(await talk.say(`AUTH PLAIN ${plainAuth('apikey', w.account.apiKey)}`), '535 5.7.1 IP Not Allowed ');
});

test('MAIL FROM before AUTH answers 530', async (t) => {
  const w = await world(t);
  const talk = await smtpTalk(w.port);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  assert.equal(await talk.say('MAIL FROM:<news@example.com>'), '530 5.7.0 Error: authentication Required');
});

test('an account whose email service is off answers 550 at MAIL FROM', async (t) => {
  const w = await world(t, {}, { services: { email: false } });
  const talk = await signedIn(t, w);
  assert.equal(await talk.say('MAIL FROM:<news@example.com>'), '550 5.7.1 current service is not active');
});

test('an envelope sender outside the verified domains answers 550 Domain not permitted. err 2', async (t) => {
  const w = await world(t);
  const talk = await signedIn(t, w);
  assert.equal(await talk.say('MAIL FROM:<news@elsewhere.org>'), '550 5.7.1 Domain not permitted. err 2');
});

test('a header From outside the verified domains answers 550 after DATA, and nothing is stored or billed', async (t) => {
  const w = await world(t);
  const talk = await signedIn(t, w);
  assert.equal(await talk.say('MAIL FROM:<news@example.com>'), '250 2.1.0 Accepted');
  assert.equal(await talk.say('RCPT TO:<ana@example.org>'), '250 2.1.5 Accepted');
  assert.equal(await data(talk, message('ceo@elsewhere.org')), '550 5.7.1 Domain not permitted. err 2');
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 1000);
});

test('each message counts as a request: past the account\'s rate MAIL FROM answers 451 RATE_LIMIT_EXCEEDED', async (t) => {
  const w = await world(t, {}, { rateLimitPerSecond: 1 });
  const talk = await signedIn(t, w);
  assert.equal(await talk.say('MAIL FROM:<news@example.com>'), '250 2.1.0 Accepted');
  assert.equal(await talk.say('RSET'), '250 2.0.0 Flushed');
  assert.equal(await talk.say('MAIL FROM:<news@example.com>'), '451 4.7.0 RATE_LIMIT_EXCEEDED Ha excedido el límite de peticiones permitidas por segundo.');
});

test('a recipient past the messages left answers 550 No messages left at RCPT, and the others are sent', async (t) => {
  const w = await world(t, {}, { messagesLeft: 1 });
  const talk = await signedIn(t, w);
  await talk.say('MAIL FROM:<news@example.com>');
  assert.equal(await talk.say('RCPT TO:<ana@example.org>'), '250 2.1.5 Accepted');
  assert.equal(await talk.say('RCPT TO:<bea@example.org>'), '550 5.7.1 No messages left, please buy more messages');
  assert.match(await data(talk, message()), /^250 2\.0\.0 Ok: queued as [0-9a-f-]{36}$/);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 0);
});

test('recipients past the API\'s limit answer 452 Too many recipients', async (t) => {
  const w = await world(t, { HERALD_MAX_EMAIL_RECIPIENTS: '2' });
  const talk = await signedIn(t, w);
  await talk.say('MAIL FROM:<news@example.com>');
  assert.equal(await talk.say('RCPT TO:<a@example.org>'), '250 2.1.5 Accepted');
  assert.equal(await talk.say('RCPT TO:<b@example.org>'), '250 2.1.5 Accepted');
  assert.equal(await talk.say('RCPT TO:<c@example.org>'), '452 4.5.3 Too many recipients');
});

test('a client that keeps sending refused RCPTs is cut off after 100 with 421', async (t) => {
  const w = await world(t, { HERALD_MAX_EMAIL_RECIPIENTS: '1' });
  const talk = await signedIn(t, w);
  await talk.say('MAIL FROM:<news@example.com>');
  await talk.say('RCPT TO:<a@example.org>');
  const replies: string[] = [];
  for (let i = 0; i < 101; i++) replies.push(await talk.say(`RCPT TO:<r${i}@example.org>`));
  assert.deepStrictEqual([replies[0], replies[99]], ['452 4.5.3 Too many recipients', '452 4.5.3 Too many recipients']);
  assert.equal(replies[100], '421 4.7.0 Too many refused recipients, closing the connection');
  await talk.closed();
});

test('a recipient address herald cannot send to answers 553', async (t) => {
  const w = await world(t);
  const talk = await signedIn(t, w);
  await talk.say('MAIL FROM:<news@example.com>');
  assert.equal(await talk.say('RCPT TO:<ana@localhost>'), '553 5.1.3 The recipient address has the wrong structure!');
});

test('a message over the size limit is cut off with 552 and the connection closed, without reading the rest', async (t) => {
  const w = await world(t, { HERALD_BODY_LIMIT: '65536' });
  const talk = await signedIn(t, w);
  await talk.say('MAIL FROM:<news@example.com>');
  await talk.say('RCPT TO:<ana@example.org>');
  assert.equal(await talk.say('DATA'), '354 End data with <CR><LF>.<CR><LF>');
  talk.write(`From: news@example.com\r\nSubject: big\r\n\r\n${'x'.repeat(998)}\r\n`.repeat(100));
  assert.equal(await talk.reply(), '552 5.3.4 Request body is too large');
  await talk.closed();
});

test('a SIZE declared over the limit is refused at MAIL FROM', async (t) => {
  const w = await world(t, { HERALD_BODY_LIMIT: '65536' });
  const talk = await signedIn(t, w);
  assert.equal(await talk.say('MAIL FROM:<news@example.com> SIZE=70000'), '552 5.3.4 Error: message exceeds fixed maximum message size 65536');
});

test('X-Herald-Metadata that is not a JSON object answers 554 5.6.0 with the API\'s text', async (t) => {
  const w = await world(t);
  const talk = await signedIn(t, w);
  await talk.say('MAIL FROM:<news@example.com>');
  await talk.say('RCPT TO:<ana@example.org>');
  assert.equal(
    await data(talk, message('news@example.com', 'X-Herald-Metadata: [1,2]\r\n')),
    '554 5.6.0 Invalid request, a field has the wrong type or value: metadata must be a JSON object',
  );
});

test('connections past the per-address limit are answered 421 and closed', async (t) => {
  const w = await world(t, { HERALD_SUBMISSION_MAX_CONNECTIONS_PER_ADDRESS: '2' });
  const first = await smtpTalk(w.port);
  const second = await smtpTalk(w.port);
  t.after(() => { first.end(); second.end(); });
  const third = await smtpTalk(w.port);
  assert.equal(third.greeting, '421 4.7.0 Too many connections from this address, try again later');
  await third.closed();
});

test('without a certificate a client that is not on loopback is refused AUTH with 538', async (t) => {
  const address = Object.values(networkInterfaces()).flat().find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
  if (address === undefined) return t.skip('this machine has no non-loopback IPv4 address');
  const service = await startService(t, { env: { HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSION_HOST: address } });
  const account = await openAccount(service);
  const talk = await smtpTalk(service.submission?.starttlsPort ?? 0, address);
  t.after(() => talk.end());
  await talk.say('EHLO client.test');
  assert.equal(
    await talk.say(`AUTH PLAIN ${plainAuth('apikey', account.apiKey)}`),
    '538 5.7.11 Encryption required: issue STARTTLS first (without a certificate, AUTH is offered to loopback clients only)',
  );
});

test('the ledger is exact after accepted, refused and suppressed submissions', async (t) => {
  const w = await world(t, {}, { messagesLeft: 10 });
  await addSuppression(w.service.deps.db, { accountId: w.account.id, address: 'gone@example.org', reason: 'bounced', messageId: null, at: w.service.deps.clock() });
  const talk = await signedIn(t, w);
  // Two recipients, one suppressed: one billed.
  await talk.say('MAIL FROM:<news@example.com>');
  await talk.say('RCPT TO:<ana@example.org>');
  await talk.say('RCPT TO:<gone@example.org>');
  assert.match(await data(talk, message()), /^250 2\.0\.0 Ok: queued as [0-9a-f-]{36} and 1 more \(2 messages\)$/);
  // Refused after DATA (the header From): nothing billed.
  await talk.say('MAIL FROM:<news@example.com>');
  await talk.say('RCPT TO:<ana@example.org>');
  assert.equal(await data(talk, message('x@elsewhere.org')), '550 5.7.1 Domain not permitted. err 2');
  // Three recipients: three billed.
  await talk.say('MAIL FROM:<news@example.com>');
  for (const r of ['a', 'b', 'c']) await talk.say(`RCPT TO:<${r}@example.org>`);
  assert.match(await data(talk, message()), /^250 2\.0\.0 Ok: queued as [0-9a-f-]{36} and 2 more \(3 messages\)$/);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 6);
  const ledger = await listLedger(w.service.deps.db, w.account.id);
  assert.deepStrictEqual(ledger.map((e) => [e.reason, e.messagesDelta]).sort(), [['account.open', 10], ['email.send', -1], ['email.send', -3]].sort());
});
