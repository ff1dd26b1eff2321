// SMTP submission (issue 22) driven by three real clients, none written here: nodemailer,
// Python's smtplib (test/fixtures/submission/smtplib-client.py) and Debian's swaks. Each
// submits over STARTTLS or implicit TLS with a certificate made for the test and verified by
// the client, authenticates with AUTH PLAIN or AUTH LOGIN, and the test reads back what
// herald made of it: the 250 reply, the message rows and views (source smtp, sent once the
// worker has run), the MIME the capture transport kept, and the account's messages left.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { format } from 'node:util';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { issueApiKey } from '../../src/app/api-keys.ts';
import type { Service } from '../../src/service.ts';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { REPO, runToEnd } from '../support/child-process.ts';
import { get, openAccount, readAccount, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.parse('2030-03-04T10:20:30.000Z');
const DATE_AT_T0 = 'Mon, 4 Mar 2030 10:20:30 +0000';
const PUBLIC_URL = 'https://herald.example.com';
// herald's one-click unsubscribe lines, each copy's own URL (on a line of its own: mailsplit folds the long header).
const UNSUBSCRIBE = new RegExp(`List-Unsubscribe:\\r\\n <${PUBLIC_URL}/u/[A-Za-z0-9_.-]+>\\r\\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\\r\\n`, 'g');

/** Debian's swaks with TLS (Net::SSLeay), or why its tests are skipped. */
const swaksMissing: string | false = (() => {
  const support = spawnSync('swaks', ['--support'], { encoding: 'utf8' });
  if (support.error !== undefined) return 'swaks is not installed (apt-get install swaks libnet-ssleay-perl; .ci/run installs it)';
  return /=== TLS supported/.test(`${support.stdout}${support.stderr}`) ? false : 'swaks has no TLS: Net::SSLeay is missing (apt-get install libnet-ssleay-perl)';
})();

interface Certificate {
  readonly keyPath: string;
  readonly certPath: string;
  readonly cert: Buffer;
}

let dir = '';
let certificate: Certificate;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-submission-clients-'));
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  // Self-signed, naming the address the clients connect to, so each of them verifies it.
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-days', '2', '-keyout', keyPath, '-out', certPath], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  certificate = { keyPath, certPath, cert: readFileSync(certPath) };
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly starttlsPort: number;
  readonly implicitTlsPort: number;
}

/** A service with both submission ports on 127.0.0.1 (and `env`), on a clock standing at T0, and an account of 1000 messages. */
async function startWorld(t: TestContext, env: Record<string, string> = {}): Promise<World> {
  const service = await startService(t, {
    clock: () => T0,
    env: {
      ...env,
      HERALD_PUBLIC_URL: PUBLIC_URL,
      HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSIONS_PORT: '0', HERALD_SUBMISSION_HOST: '127.0.0.1',
      HERALD_SUBMISSION_TLS_KEY: certificate.keyPath, HERALD_SUBMISSION_TLS_CERT: certificate.certPath,
    },
  });
  const account = await openAccount(service);
  const { starttlsPort, implicitTlsPort } = service.submission ?? {};
  assert.ok(starttlsPort !== undefined && implicitTlsPort !== undefined);
  return { service, account, starttlsPort, implicitTlsPort };
}

type Tls = 'starttls' | 'implicit';
type AuthMethod = 'PLAIN' | 'LOGIN';

const portOf = (world: World, tls: Tls): number => (tls === 'starttls' ? world.starttlsPort : world.implicitTlsPort);

// ---- the clients ----

/** Runs a command with `input` on its stdin, to its end. */
function runWithInput(command: string, args: readonly string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd: REPO, env: { ...process.env, PYTHONIOENCODING: 'utf-8' } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What nodemailer's transport answered, and the commands it wrote (from its debug log). */
interface NodemailerRun {
  readonly response: string;
  readonly commands: readonly string[];
}

/** nodemailer's SMTP transport: TLS required and verified against the test's certificate, AUTH by the method named. */
async function nodemailerRun(world: World, tls: Tls, method: AuthMethod, mail: Mail.Options, apiKey = world.account.apiKey): Promise<NodemailerRun> {
  const commands: string[] = [];
  const ignore = (): void => {};
  // nodemailer logs each command it writes at debug level, marked `tnx: 'client'`.
  const logger = {
    level: ignore, trace: ignore, info: ignore, warn: ignore, error: ignore, fatal: ignore,
    debug(entry: { tnx?: string }, message: string, ...args: unknown[]) {
      if (entry.tnx === 'client') commands.push(format(message, ...args));
    },
  };
  const transport = nodemailer.createTransport({
    host: '127.0.0.1', port: portOf(world, tls), secure: tls === 'implicit', requireTLS: tls === 'starttls',
    tls: { ca: certificate.cert }, auth: { user: 'apikey', pass: apiKey, method }, logger, debug: true,
  });
  try {
    return { response: (await transport.sendMail(mail)).response, commands };
  } finally {
    transport.close();
  }
}

/** nodemailerRun's 250 reply. */
const nodemailerSend = async (world: World, tls: Tls, method: AuthMethod, mail: Mail.Options, apiKey?: string): Promise<string> =>
  (await nodemailerRun(world, tls, method, mail, apiKey)).response;

/** The bytes nodemailer writes for `mail` (its own composer), so a test can send them and compare. */
async function composed(mail: Mail.Options, keepBcc = false): Promise<Buffer> {
  const node = new MailComposer(mail).compile();
  node.keepBcc = keepBcc;
  return node.build();
}

interface SmtplibAnswer {
  readonly code: number;
  readonly reply: string;
  /** What sendmail sent, when the script had the bytes (base64). */
  readonly sent: string | null;
  /** The parameters smtplib gave MAIL FROM (SMTPUTF8, BODY=8BITMIME). */
  readonly mailOptions: readonly string[];
}

/** Runs test/fixtures/submission/smtplib-client.py with a job (see there); resolves with its answer. */
async function smtplibSend(world: World, tls: Tls, method: AuthMethod, job: Record<string, unknown>, apiKey = world.account.apiKey): Promise<SmtplibAnswer> {
  const input = JSON.stringify({ host: '127.0.0.1', port: portOf(world, tls), tls, cafile: certificate.certPath, auth: method, user: 'apikey', password: apiKey, ...job });
  const script = join(REPO, 'test/fixtures/submission/smtplib-client.py');
  const run = await runWithInput('python3', [script], input);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as SmtplibAnswer;
}

interface SwaksRun {
  /** The reply to the message's final dot, as swaks printed it. */
  readonly reply: string;
  /** The message as swaks wrote it after DATA, from its transcript (CRLF lines). */
  readonly sent: Buffer;
}

/** swaks with TLS verified against the test's certificate, AUTH by the method named, and `args` (the envelope and the message). */
async function swaksSend(world: World, tls: Tls, method: AuthMethod, args: readonly string[], apiKey = world.account.apiKey): Promise<SwaksRun> {
  const run = await runToEnd('swaks', [
    '--server', '127.0.0.1', '--port', String(portOf(world, tls)), tls === 'implicit' ? '--tls-on-connect' : '--tls',
    '--tls-verify', '--tls-ca-path', certificate.certPath,
    '--auth', method, '--auth-user', 'apikey', '--auth-password', apiKey, '--ehlo', 'client.example.com',
    ...args,
  ], { ...process.env, LANG: 'C.UTF-8' });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  // The transcript: ` -> ` lines the client wrote, `<-  ` the server's replies (` ~> ` and `<~  ` inside TLS).
  const lines = run.stdout.split(/\r?\n/);
  const data = lines.findIndex((line) => /^<[~-] +354 /.test(line));
  const dot = lines.findIndex((line, i) => i > data && /^ [~-]> \.$/.test(line));
  assert.ok(data > 0 && dot > data, run.stdout);
  const sent = lines.slice(data + 1, dot).map((line) => line.replace(/^ [~-]> /, '')).join('\r\n');
  const reply = lines.slice(dot + 1).find((line) => /^<[~-] +\d{3} /.test(line))?.replace(/^<[~-] +/, '') ?? '';
  return { reply, sent: Buffer.from(`${sent}\r\n`, 'utf8') };
}

// ---- reading back ----

interface Row {
  readonly msgid: string;
  readonly recipient: string;
  readonly role: string;
}

/** The account's message rows, in the order they were made (uuidv7: RCPT order). */
async function rowsOf(world: World): Promise<Row[]> {
  const rows = await world.service.deps.db.selectFrom('messages').select(['id', 'recipient', 'recipient_role'])
    .where('account_id', '=', world.account.id).orderBy('id').execute();
  return rows.map((r) => ({ msgid: r.id, recipient: r.recipient, role: r.recipient_role }));
}

/** The 250 reply herald owes for these messages. */
function queued(rows: readonly Row[]): string {
  const [first] = rows;
  assert.ok(first !== undefined, 'a message was made');
  return rows.length === 1
    ? `250 2.0.0 Ok: queued as ${first.msgid}`
    : `250 2.0.0 Ok: queued as ${first.msgid} and ${rows.length - 1} more (${rows.length} messages)`;
}

/** GET /v1/messages/:msgid: its status, source, recipient and event types. */
async function viewOf(world: World, msgid: string, apiKey = world.account.apiKey): Promise<{ status: unknown; source: unknown; recipient: unknown; events: unknown[] }> {
  const res = await get(world.service, `/v1/messages/${msgid}`, apiKey);
  assert.equal(res.statusCode, 200, res.body);
  const view = res.json() as { status: unknown; source: unknown; recipient: unknown; events: { type: unknown }[] };
  return { status: view.status, source: view.source, recipient: view.recipient, events: view.events.map((e) => e.type) };
}

/** GET /v1/messages/:msgid/raw: the bytes the capture transport kept. */
async function capturedOf(world: World, msgid: string, apiKey = world.account.apiKey): Promise<Buffer> {
  const res = await get(world.service, `/v1/messages/${msgid}/raw`, apiKey);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'message/rfc822');
  return res.rawPayload;
}

/** The captured message without herald's List-Unsubscribe lines, which come once, in the header block. */
function withoutUnsubscribe(captured: Buffer): string {
  const text = captured.toString('utf8');
  const found = [...text.matchAll(UNSUBSCRIBE)];
  assert.equal(found.length, 1, `herald's List-Unsubscribe lines, once:\n${text.slice(0, 600)}`);
  assert.ok((found[0]?.index ?? Infinity) < text.indexOf('\r\n\r\n'), 'in the header block');
  return text.replace(UNSUBSCRIBE, '');
}

/** The message's header block (to its blank line) and its body. */
function split(message: Buffer | string): { headers: string; body: Buffer } {
  const bytes = Buffer.isBuffer(message) ? message : Buffer.from(message, 'utf8');
  const end = bytes.indexOf('\r\n\r\n');
  assert.ok(end > 0, 'the message has a header block');
  return { headers: bytes.subarray(0, end + 2).toString('utf8'), body: bytes.subarray(end + 4) };
}

const SENT = { status: 'sent', source: 'smtp', events: ['queued', 'sending', 'sent'] };

const messagesLeft = async (world: World): Promise<number> => (await readAccount(world.service, world.account.id)).messagesLeft;

// ---- nodemailer ----

test('nodemailer over STARTTLS with AUTH PLAIN: one message queued, sent, kept as nodemailer wrote it, one message debited', async (t) => {
  const world = await startWorld(t);
  const raw = await composed({ from: 'Example News <news@example.com>', to: 'ana@example.org', subject: 'Your order', text: 'It ships today.' });

  const response = await nodemailerSend(world, 'starttls', 'PLAIN', { envelope: { from: 'news@example.com', to: ['ana@example.org'] }, raw });
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.deepStrictEqual(rows.map((r) => [r.recipient, r.role]), [['ana@example.org', 'to']]);
  assert.equal(response, queued(rows));
  assert.deepStrictEqual(await viewOf(world, rows[0]!.msgid), { ...SENT, recipient: 'ana@example.org' });
  assert.equal(withoutUnsubscribe(await capturedOf(world, rows[0]!.msgid)), raw.toString('utf8'));
  assert.equal(await messagesLeft(world), 999);
});

test('nodemailer over implicit TLS with AUTH LOGIN: To, Cc and a Bcc-only envelope recipient make three messages, none with a Bcc header', async (t) => {
  const world = await startWorld(t);
  const mail = { from: 'news@example.com', to: 'ana@example.org', cc: 'bo@example.org', bcc: 'cy@example.org', subject: 'Minutes', text: 'Attached below.' };
  // keepBcc: the Bcc header reaches herald, which must take it out.
  const raw = await composed(mail, true);
  assert.match(raw.toString('utf8'), /\r\nBcc: cy@example\.org\r\n/);

  const response = await nodemailerSend(world, 'implicit', 'LOGIN', { envelope: { from: 'news@example.com', to: ['ana@example.org', 'bo@example.org', 'cy@example.org'] }, raw });
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.deepStrictEqual(rows.map((r) => [r.recipient, r.role]), [['ana@example.org', 'to'], ['bo@example.org', 'cc'], ['cy@example.org', 'bcc']]);
  assert.equal(response, queued(rows));
  const withoutBcc = raw.toString('utf8').replace('Bcc: cy@example.org\r\n', '');
  for (const row of rows) {
    assert.deepStrictEqual(await viewOf(world, row.msgid), { ...SENT, recipient: row.recipient });
    assert.equal(withoutUnsubscribe(await capturedOf(world, row.msgid)), withoutBcc);
  }
  assert.equal(await messagesLeft(world), 997);
});

test('nodemailer with two attachments: the captured MIME keeps the body and each attachment byte for byte', async (t) => {
  const world = await startWorld(t);
  const binary = randomBytes(48 * 1024);
  const csv = Buffer.from('sku;qty\r\nA-1;2\r\n.dot-line;3\r\n', 'utf8');
  const raw = await composed({
    from: 'news@example.com', to: 'ana@example.org', subject: 'Invoice', text: 'Two files.',
    attachments: [{ filename: 'invoice.bin', content: binary }, { filename: 'items.csv', content: csv, contentType: 'text/csv' }],
  });

  const response = await nodemailerSend(world, 'starttls', 'PLAIN', { envelope: { from: 'news@example.com', to: ['ana@example.org'] }, raw });
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.equal(response, queued(rows));
  const captured = await capturedOf(world, rows[0]!.msgid);
  assert.ok(split(captured).body.equals(split(raw).body), 'the body after the header block is the client\'s, byte for byte');
  const parsed = await simpleParser(captured);
  assert.deepStrictEqual(parsed.attachments.map((a) => [a.filename, a.contentType]), [['invoice.bin', 'application/octet-stream'], ['items.csv', 'text/csv']]);
  assert.ok(parsed.attachments[0]!.content.equals(binary));
  assert.ok(parsed.attachments[1]!.content.equals(csv));
  assert.equal(await messagesLeft(world), 999);
});

test('nodemailer with a UTF-8 local part in To and a UTF-8 subject: SMTPUTF8, the recipient kept as written', async (t) => {
  const world = await startWorld(t);
  const raw = await composed({ from: 'news@example.com', to: 'józsef@example.org', subject: 'Grüße aus Köln ✓', text: 'Schöne Grüße.' });

  const { response, commands } = await nodemailerRun(world, 'starttls', 'LOGIN', { envelope: { from: 'news@example.com', to: ['józsef@example.org'] }, raw });
  await world.service.worker.drain();

  assert.deepStrictEqual(commands.filter((c) => /^(MAIL|RCPT) /.test(c)), ['MAIL FROM:<news@example.com> SMTPUTF8', 'RCPT TO:<józsef@example.org>']);

  const rows = await rowsOf(world);
  assert.deepStrictEqual(rows.map((r) => [r.recipient, r.role]), [['józsef@example.org', 'to']]);
  assert.equal(response, queued(rows));
  assert.deepStrictEqual(await viewOf(world, rows[0]!.msgid), { ...SENT, recipient: 'józsef@example.org' });
  const captured = await capturedOf(world, rows[0]!.msgid);
  assert.equal(withoutUnsubscribe(captured), raw.toString('utf8'));
  const parsed = await simpleParser(captured);
  assert.deepStrictEqual([parsed.subject, parsed.text], ['Grüße aus Köln ✓', 'Schöne Grüße.\n']);
  assert.equal(await messagesLeft(world), 999);
});

test('nodemailer with a test key: the message is captured though a relay is configured, and the account is not billed', async (t) => {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const world = await startWorld(t, { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` });
  const testKey = (await issueApiKey(world.service.deps, world.service.deps.db, world.account.id, { mode: 'test' })).apiKey;
  assert.match(testKey, /^test_/);
  const raw = await composed({ from: 'news@example.com', to: 'ana@example.org', subject: 'Trying it out', text: 'From a test key.' });

  const response = await nodemailerSend(world, 'implicit', 'PLAIN', { envelope: { from: 'news@example.com', to: ['ana@example.org'] }, raw }, testKey);
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.equal(response, queued(rows));
  assert.deepStrictEqual(await viewOf(world, rows[0]!.msgid, testKey), { ...SENT, recipient: 'ana@example.org' });
  const captured = await capturedOf(world, rows[0]!.msgid, testKey);
  assert.equal(withoutUnsubscribe(captured), raw.toString('utf8'));
  const view = await get(world.service, `/v1/messages/${rows[0]!.msgid}`, testKey);
  assert.deepStrictEqual((view.json() as { events: unknown[] }).events.at(-1), { attempt: 1, peer: 'capture', response: `captured ${captured.length} bytes`, type: 'sent', at: new Date(T0).toISOString() });
  assert.equal(sink.messages.length, 0);
  assert.equal(await messagesLeft(world), 1000);
});

test('nodemailer with X-Herald-Metadata, -Track and -Certified: the options are stored and the headers never leave', async (t) => {
  const world = await startWorld(t);
  const raw = await composed({
    from: 'news@example.com', to: 'ana@example.org', subject: 'Order 42', text: 'Thanks.',
    headers: { 'X-Herald-Metadata': '{"order":"42","tier":"gold"}', 'X-Herald-Track': 'none', 'X-Herald-Certified': 'false' },
  });

  const response = await nodemailerSend(world, 'starttls', 'PLAIN', { envelope: { from: 'news@example.com', to: ['ana@example.org'] }, raw });
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.equal(response, queued(rows));
  const send = await world.service.deps.db.selectFrom('sends').innerJoin('messages', 'messages.send_id', 'sends.id')
    .select(['sends.metadata', 'sends.certified', 'sends.track_opens', 'sends.track_clicks']).where('messages.id', '=', rows[0]!.msgid).executeTakeFirstOrThrow();
  assert.deepStrictEqual({ ...send, metadata: JSON.parse(String(send.metadata)) }, { metadata: { order: '42', tier: 'gold' }, certified: 0, track_opens: 0, track_clicks: 0 });
  // Each header with its folded continuation lines.
  const expected = raw.toString('utf8').replace(/X-Herald-[A-Za-z]+:[^\r]*\r\n(?:[ \t][^\r]*\r\n)*/g, '');
  assert.equal(withoutUnsubscribe(await capturedOf(world, rows[0]!.msgid)), expected);
  assert.doesNotMatch(expected, /X-Herald/i);
});

// ---- Python's smtplib ----

test('smtplib over STARTTLS with AUTH LOGIN: one message, kept as sent with the Date and Message-ID herald adds', async (t) => {
  const world = await startWorld(t);

  const answer = await smtplibSend(world, 'starttls', 'LOGIN', { flatten: true, message: { from: 'Example News <news@example.com>', to: ['ana@example.org'], subject: 'Your order', text: 'It ships today.\n' } });
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.equal(`${answer.code} ${answer.reply}`, queued(rows));
  assert.deepStrictEqual(await viewOf(world, rows[0]!.msgid), { ...SENT, recipient: 'ana@example.org' });
  const sent = Buffer.from(answer.sent ?? '', 'base64').toString('utf8');
  assert.doesNotMatch(sent, /^(Date|Message-ID):/im);
  // Python's EmailMessage writes neither a Date nor a Message-ID: herald's go on top.
  assert.equal(withoutUnsubscribe(await capturedOf(world, rows[0]!.msgid)), `Message-ID: <${rows[0]!.msgid}@herald.example.com>\r\nDate: ${DATE_AT_T0}\r\n${sent}`);
  assert.equal(await messagesLeft(world), 999);
});

test('smtplib over implicit TLS with AUTH PLAIN: a Bcc header is taken out and its envelope recipient gets a bcc message', async (t) => {
  const world = await startWorld(t);
  const raw = [
    'From: news@example.com', 'To: ana@example.org', 'Cc: bo@example.org', 'Bcc: cy@example.org', 'Subject: Minutes',
    `Date: ${DATE_AT_T0}`, 'Message-ID: <minutes-1@example.com>', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=us-ascii', '', 'See you Monday.', '',
  ].join('\r\n');

  const answer = await smtplibSend(world, 'implicit', 'PLAIN', {
    envelope: { from: 'news@example.com', to: ['ana@example.org', 'bo@example.org', 'cy@example.org'] }, raw: Buffer.from(raw).toString('base64'),
  });
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.deepStrictEqual(rows.map((r) => [r.recipient, r.role]), [['ana@example.org', 'to'], ['bo@example.org', 'cc'], ['cy@example.org', 'bcc']]);
  assert.equal(`${answer.code} ${answer.reply}`, queued(rows));
  for (const row of rows) {
    assert.deepStrictEqual(await viewOf(world, row.msgid), { ...SENT, recipient: row.recipient });
    assert.equal(withoutUnsubscribe(await capturedOf(world, row.msgid)), raw.replace('Bcc: cy@example.org\r\n', ''));
  }
  assert.equal(await messagesLeft(world), 997);
});

test('smtplib send_message with a UTF-8 local part, UTF-8 headers and an 8-bit body: SMTPUTF8, the bytes kept as sent', async (t) => {
  const world = await startWorld(t);

  const answer = await smtplibSend(world, 'starttls', 'PLAIN', {
    utf8: true,
    message: { from: 'Jürgen Weiß <news@example.com>', to: ['józsef@example.org'], subject: 'Grüße aus Köln ✓', text: 'Schöne Grüße, bis Montag.\n' },
  });
  await world.service.worker.drain();

  // smtplib adds SIZE (the server offers it): its figure is smtplib's count, not what this test is about.
  assert.deepStrictEqual(answer.mailOptions.filter((option) => !option.startsWith('size=')), ['SMTPUTF8', 'BODY=8BITMIME']);

  const rows = await rowsOf(world);
  assert.deepStrictEqual(rows.map((r) => [r.recipient, r.role]), [['józsef@example.org', 'to']]);
  assert.equal(`${answer.code} ${answer.reply}`, queued(rows));
  assert.deepStrictEqual(await viewOf(world, rows[0]!.msgid), { ...SENT, recipient: 'józsef@example.org' });
  const captured = withoutUnsubscribe(await capturedOf(world, rows[0]!.msgid));
  // RFC 6532: the headers go as UTF-8, not as encoded words; the body as 8-bit.
  assert.equal(captured, [
    `Message-ID: <${rows[0]!.msgid}@herald.example.com>`, `Date: ${DATE_AT_T0}`,
    'From: Jürgen Weiß <news@example.com>', 'To: józsef@example.org', 'Subject: Grüße aus Köln ✓',
    'Content-Type: text/plain; charset="utf-8"', 'Content-Transfer-Encoding: 8bit', 'MIME-Version: 1.0', '', 'Schöne Grüße, bis Montag.', '',
  ].join('\r\n'));
  assert.equal(await messagesLeft(world), 999);
});

test('smtplib with an attachment: the captured MIME keeps the body and the attachment byte for byte', async (t) => {
  const world = await startWorld(t);
  const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(20 * 1024)]);

  const answer = await smtplibSend(world, 'implicit', 'LOGIN', {
    flatten: true,
    message: { from: 'news@example.com', to: ['ana@example.org'], subject: 'Invoice', text: 'Your invoice.\n', attachments: [{ filename: 'invoice.pdf', maintype: 'application', subtype: 'pdf', base64: pdf.toString('base64') }] },
  });
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.equal(`${answer.code} ${answer.reply}`, queued(rows));
  const captured = await capturedOf(world, rows[0]!.msgid);
  assert.ok(split(captured).body.equals(split(Buffer.from(answer.sent ?? '', 'base64')).body), 'the body after the header block is the client\'s, byte for byte');
  const parsed = await simpleParser(captured);
  assert.deepStrictEqual(parsed.attachments.map((a) => [a.filename, a.contentType]), [['invoice.pdf', 'application/pdf']]);
  assert.ok(parsed.attachments[0]!.content.equals(pdf));
  assert.equal(await messagesLeft(world), 999);
});

// ---- swaks ----

test('swaks over STARTTLS with AUTH PLAIN: one message, kept as swaks wrote it', { skip: swaksMissing }, async (t) => {
  const world = await startWorld(t);

  const run = await swaksSend(world, 'starttls', 'PLAIN', ['--from', 'news@example.com', '--to', 'ana@example.org', '--header', 'Subject: Your order', '--body', 'It ships today.']);
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.equal(run.reply, queued(rows));
  assert.deepStrictEqual(await viewOf(world, rows[0]!.msgid), { ...SENT, recipient: 'ana@example.org' });
  assert.equal(withoutUnsubscribe(await capturedOf(world, rows[0]!.msgid)), run.sent.toString('utf8'));
  assert.equal(await messagesLeft(world), 999);
});

test('swaks over implicit TLS with AUTH LOGIN: To, Cc and an envelope-only recipient make to, cc and bcc messages', { skip: swaksMissing }, async (t) => {
  const world = await startWorld(t);

  const run = await swaksSend(world, 'implicit', 'LOGIN', [
    '--from', 'news@example.com', '--to', 'ana@example.org,bo@example.org,cy@example.org',
    '--header', 'To: ana@example.org', '--header', 'Cc: bo@example.org', '--header', 'Subject: Minutes', '--body', 'See you Monday.',
  ]);
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.deepStrictEqual(rows.map((r) => [r.recipient, r.role]), [['ana@example.org', 'to'], ['bo@example.org', 'cc'], ['cy@example.org', 'bcc']]);
  assert.equal(run.reply, queued(rows));
  for (const row of rows) {
    assert.deepStrictEqual(await viewOf(world, row.msgid), { ...SENT, recipient: row.recipient });
    assert.equal(withoutUnsubscribe(await capturedOf(world, row.msgid)), run.sent.toString('utf8'));
  }
  assert.equal(await messagesLeft(world), 997);
});

test('swaks with an attachment and an 8-bit body: the captured MIME keeps both byte for byte', { skip: swaksMissing }, async (t) => {
  const world = await startWorld(t);
  const file = join(dir, 'report.bin');
  const report = randomBytes(16 * 1024);
  writeFileSync(file, report);

  const run = await swaksSend(world, 'starttls', 'LOGIN', [
    '--from', 'news@example.com', '--to', 'ana@example.org', '--header', 'Subject: Report',
    '--body', 'Grüße, the report is attached.', '--attach-type', 'application/octet-stream', '--attach-name', 'report.bin', '--attach', `@${file}`,
  ]);
  await world.service.worker.drain();

  const rows = await rowsOf(world);
  assert.equal(run.reply, queued(rows));
  const captured = await capturedOf(world, rows[0]!.msgid);
  assert.equal(withoutUnsubscribe(captured), run.sent.toString('utf8'));
  const parsed = await simpleParser(captured);
  assert.deepStrictEqual(parsed.attachments.map((a) => [a.filename, a.contentType]), [['report.bin', 'application/octet-stream']]);
  assert.ok(parsed.attachments[0]!.content.equals(report));
  assert.equal(await messagesLeft(world), 999);
});
