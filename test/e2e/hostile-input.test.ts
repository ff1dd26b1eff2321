// Hostile input against a started service: herald as `npm start` runs it (deploy/herald
// with deploy/node-flags) in a child process on loopback, fed what an attacker with an
// ordinary API key (or none) would send. Every input is answered within 1 s with its
// 4xx, the service logs no error, /healthz (probed from a thread of its own the whole
// time) answers within 100 ms, and at the end the process is alive with its resident
// memory back within 160 MB of what it was before the first hostile input.
//
// A case whose fix another branch owns and main does not have yet is `todo`, with the
// owner named; it is not sent (some of them take the process down).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHerald, type HeraldProcess } from '../support/herald-process.ts';
import { probeHealth, type HealthProbe } from '../support/health-probe.ts';

const ADMIN_TOKEN = 'hostile-input-admin-token-7c1f0e9a4b2d';
const ANSWER_MS = 1000;
const HEALTH_MS = 100;
// V8 hands freed heap pages back to the system lazily: seconds after the last input the
// process stays some 80-100 MB above where it started, on main and on earlier releases
// alike. The hostile bodies add up to over 250 MB (40 subjects of 5 MB alone), so a leak
// of them shows as growth past this; a fixed ceiling measured the machine's baseline instead.
const RSS_GROWTH_LIMIT_BYTES = 160 * 1024 * 1024;
/** The child's resident memory now, from /proc. */
const residentBytes = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${herald.pid}/status`, 'utf8'))?.[1]) * 1024;
let rssBefore = 0;
// The machine running the tests may be busy with other work: a case's time limits must
// hold on one of this many tries (a real stall, such as a 10 s template compile, fails all).
const TIME_TRIES = 3;
// The time limits measure herald's event loop, not the test files running beside it: npm
// test runs this file alone after the parallel pass (HERALD_TEST_ALONE=1), where it skips.
const skip = process.env.HERALD_TEST_ALONE === '1' ? false : 'runs alone after the other test files (npm test sets HERALD_TEST_ALONE=1)';

let herald: HeraldProcess;
let probe: HealthProbe;
let dataDir: string;
let account: { id: string; apiKey: string; templateId: string };

interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * One request over node:http rather than fetch: a server may answer (413) before the body is
 * all written and then close, and a client that reads the answer while writing sees it, as
 * curl does; fetch reports only the broken pipe.
 */
function call(method: string, path: string, body: string | Buffer | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(`${herald.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }), ...headers },
    }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (error) => { if (!answered) reject(error); });
    req.end(body);
  });
}

const withKey = (): Record<string, string> => ({ authorization: `Bearer ${account.apiKey}` });
const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const send = (path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> => call('POST', path, body, { ...withKey(), ...headers });
/** A POST with the account's key. */
const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}): HostileRequest => ({ method: 'POST', path, body, headers: { ...withKey(), ...headers } });
const operator = (method: string, path: string, body: string): HostileRequest => ({ method, path, body, headers: asAdmin });
const read = (path: string): HostileRequest => ({ method: 'GET', path, headers: withKey() });

const EMAIL = { from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' }, to: [{ email: 'ana@example.org' }], subject: 'Hello', body: '<p>Hi</p>' };
/** An email as JSON text with `fields` replacing or adding to a valid one. */
const email = (fields: Record<string, unknown>): string => JSON.stringify({ ...EMAIL, ...fields });
/** A template-mode email: the stored template, `subject` as given (placeholders rendered into it). */
const templateEmail = (subject: string): string => email({ body: undefined, template_id: account.templateId, subject, variables: { a: 'x' } });
const ifNesting = (levels: number): string => '{{#if a}}'.repeat(levels) + 'x' + '{{/if}}'.repeat(levels);

before(async () => {
  if (skip !== false) return;
  dataDir = mkdtempSync(join(tmpdir(), 'herald-hostile-'));
  herald = await startHerald('all', { HERALD_DATABASE_URL: `sqlite:${join(dataDir, 'herald.db')}`, HERALD_ADMIN_TOKEN: ADMIN_TOKEN }, 60_000, 'deploy-script');
  probe = probeHealth(herald.url);
  // The probe's first fetch loads its HTTP client: wait for it to be answered once.
  await probe.worstSince(Date.now(), 30_000);
  const created = await call('POST', '/admin/v1/accounts', JSON.stringify({ name: 'mallory', messagesLeft: 10_000_000, rateLimitPerSecond: 10_000 }), asAdmin);
  assert.equal(created.status, 201, created.body);
  const { account: { id }, apiKey: { apiKey } } = JSON.parse(created.body) as { account: { id: string }; apiKey: { apiKey: string } };
  const domain = await call('POST', `/admin/v1/accounts/${id}/domains`, JSON.stringify({ domain: 'example.com', verified: true }), asAdmin);
  assert.equal(domain.status, 201, domain.body);
  account = { id, apiKey, templateId: '' };
  const template = await send('/v1/email/templates', JSON.stringify({ name: 'plain', subject: 'Hi {{a}}', html: '<p>Hi {{a}}</p>' }));
  assert.equal(template.status, 201, template.body);
  account.templateId = (JSON.parse(template.body) as { template_id: string }).template_id;
  rssBefore = residentBytes();
});

after(async () => {
  await probe?.stop();
  await herald?.kill('SIGTERM');
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

interface HostileRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: string | Buffer;
  readonly headers: Record<string, string>;
}

interface HostileCase {
  readonly name: string;
  /** The branch whose fix main does not have yet: the case is todo and not sent. */
  readonly owner?: string;
  /** Why the case's time limits may not hold on a busy machine: it is sent, and its failures are reported as todo. */
  readonly todo?: string;
  /** Builds the request (megabytes, for some), before the clock starts. */
  readonly request: () => HostileRequest;
  /** The answer expected; by default any 4xx with a JSON `message` or `error`. */
  readonly expect?: (answer: Answer) => void | Promise<void>;
}

function expectClientError(answer: Answer): void {
  assert.ok(answer.status >= 400 && answer.status < 500, `${answer.status} ${answer.body.slice(0, 200)}`);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.ok(typeof body.message === 'string' || typeof body.error === 'string', answer.body.slice(0, 200));
}

const exactly = (status: number, body: unknown) => (answer: Answer): void => {
  assert.equal(answer.status, status, answer.body.slice(0, 300));
  assert.deepStrictEqual(JSON.parse(answer.body), body);
};

function hostile(name: string, request: () => HostileRequest, expect?: HostileCase['expect'], owner?: string, todo?: string): HostileCase {
  return { name, request, ...(expect === undefined ? {} : { expect }), ...(owner === undefined ? {} : { owner }), ...(todo === undefined ? {} : { todo }) };
}

/** The answer to a subject past HERALD_MAX_SUBJECT_LENGTH (2,000 by default), before any placeholder is read. */
const subjectTooLong = { message: 'Subject is too long', detail: 'at most 2000 characters' };

/** Lazily built bodies: a todo case never builds its megabytes. */
const big = (build: () => string): (() => string) => {
  let text: string | undefined;
  return () => (text ??= build());
};
const placeholderSubject = big(() => '{{a}}'.repeat(500_000));
const longSms = big(() => JSON.stringify({ message: 'a'.repeat(9_000_000), mobile_numbers: ['+5215512345678'] }));
const manyRecipients = big(() => email({ to: Array.from({ length: 10_000 }, (_, i) => ({ email: `r${i}@example.org` })) }));

const CASES: readonly HostileCase[] = [
  // ---- From the issue ----
  hostile('a template-mode subject of {{a}} repeated 500,000 times (2.5 MB)', () => post('/v1/email', templateEmail(placeholderSubject())), exactly(400, subjectTooLong)),
  hostile('a template html of {{a}} repeated 500,000 times (2.5 MB)', () => post('/v1/email/templates', JSON.stringify({ name: 'huge', html: placeholderSubject() })), exactly(400, { message: 'Template is too large', detail: 'at most 1048576 characters' })),
  hostile('a subject of {{#if a}} nested 3,500 deep', () => post('/v1/email', templateEmail(ifNesting(3_500))), exactly(400, subjectTooLong)),
  hostile('a subject of {{#if a}} nested 20,000 deep', () => post('/v1/email', templateEmail(ifNesting(20_000))), exactly(400, subjectTooLong)),
  hostile('a template html of {{#if a}} nested 20,000 deep', () => post('/v1/email/templates', JSON.stringify({ name: 'deep', html: ifNesting(20_000) })), exactly(400, { message: 'Template blocks are nested too deeply', detail: 'at most 50 levels of blocks' })),
  hostile('an SMS of 9,000,000 characters', () => post('/v1/sms/send', longSms()), exactly(413, { message: 'Request body is too large' })),
  hostile('an email to 10,000 recipients', () => post('/v1/email', manyRecipients()), exactly(400, { message: 'Too many recipients', detail: 'at most 2000 addresses in to, cc and bcc together' })),
  hostile('metadata nested 5,000 deep', () => post('/v1/email', `{"metadata":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)},${email({}).slice(1)}`),
    exactly(400, { message: 'Invalid request, the JSON body is nested more than 64 levels deep' })),
  hostile('mobile_numbers [{"toString": 1}]', () => post('/v1/sms/send', '{"message":"hi","mobile_numbers":[{"toString":1}]}'),
    exactly(400, { message: 'The mobile number has the wrong structure!', error: [{ mobile_number: '[object Object]' }] })),
  hostile('PATCH /admin/v1/accounts/:id with ipAllowList [{"toString": 1}]', () => operator('PATCH', `/admin/v1/accounts/${account.id}`, '{"ipAllowList":[{"toString":1}]}'),
    (answer) => {
      assert.equal(answer.status, 400, answer.body);
      const body = JSON.parse(answer.body) as { message: string; detail: string };
      assert.equal(body.message, 'Invalid request, a field has the wrong type or value');
      assert.match(body.detail, /^ipAllowList: /);
    }),
  hostile('a body declared charset=iso-8859-1', () => post('/v1/email', Buffer.from(email({ subject: 'Café' }), 'latin1'), { 'content-type': 'application/json; charset=iso-8859-1' }),
    exactly(415, { message: 'Unsupported charset, send application/json in UTF-8' })),
  hostile('a recipient with a lone surrogate', () => post('/v1/email', email({ to: [{ email: 'ana\ud800@example.org' }] })),
    exactly(400, { message: 'The recipient address has the wrong structure!', error: [{ email: 'ana\ud800@example.org' }] })),

  // ---- More of the same kinds ----
  hostile('a body whose bytes are not UTF-8', () => post('/v1/email', Buffer.from(email({ subject: 'Café' }), 'latin1')),
    exactly(400, { message: 'Invalid request, the body is not valid UTF-8' })),
  hostile('a body declared charset=utf-16', () => post('/v1/sms/send', Buffer.from('{"message":"hi","mobile_numbers":["+5215512345678"]}', 'utf16le'), { 'content-type': 'application/json; charset=utf-16' }),
    exactly(415, { message: 'Unsupported charset, send application/json in UTF-8' })),
  hostile('arrays nested 100,000 deep (200 KB)', () => post('/v1/sms/send', '['.repeat(100_000) + ']'.repeat(100_000)),
    exactly(400, { message: 'Invalid request, the JSON body is nested more than 64 levels deep' })),
  hostile('a 1 MB string of escaped quotes and a body nested 65 deep after it', () => post('/v1/sms/send', `[${JSON.stringify('"'.repeat(500_000))},${'['.repeat(64)}${']'.repeat(64)}]`),
    exactly(400, { message: 'Invalid request, the JSON body is nested more than 64 levels deep' })),
  hostile('an operator body nested 5,000 deep', () => operator('POST', '/admin/v1/accounts', `{"name":"x","services":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`),
    exactly(400, { message: 'Invalid request, the JSON body is nested more than 64 levels deep' })),
  hostile('a variable of 110,000 values', () => post('/v1/email', templateEmail('Hi').replace('"variables":{', `"variables":{"v":[${Array(110_000).fill(0).join(',')}],`)),
    exactly(400, { message: 'Invalid request, the JSON body has more than 100000 values' })),
  hostile('an SMS to 110,000 numbers that are zeros', () => post('/v1/sms/send', JSON.stringify({ message: 'hi', mobile_numbers: Array(110_000).fill(0) })),
    exactly(400, { message: 'Invalid request, the JSON body has more than 100000 values' })),
  hostile('cc that is an object with a toString key', () => post('/v1/email', email({ options: { cc: [{ email: { toString: 1 } }] } })),
    exactly(400, { message: 'The cc address has the wrong structure!', error: [{ email: '[object Object]' }] })),
  hostile('a from address with a control character', () => post('/v1/email', email({ from: { email: 'news\u0000@example.com', name: 'x' } })),
    exactly(400, { message: 'The from address has the wrong structure!', error: [{ email: 'news\u0000@example.com' }] })),
  hostile('an SMS number with a lone surrogate', () => post('/v1/sms/send', JSON.stringify({ message: 'hi', mobile_numbers: ['+52155\udc0012345678'] })),
    exactly(400, { message: 'The mobile number has the wrong structure!', error: [{ mobile_number: '+52155\udc0012345678' }] })),
  hostile('a WhatsApp destination with a control character', () => post('/v1/whatsapp/sendMessage', JSON.stringify({ destination: '5215512345678\n', message: 'hi' })),
    exactly(400, { message: 'Invalid destination' })),
  hostile('a query string of 3,000 repeated limit parameters', () => read(`/v1/messages?${Array(3_000).fill('limit=1e308').join('&')}`)),
  hostile('a path id of invalid percent-encoding', () => read('/v1/messages/%ED%A0%80%FF')),
  hostile('a subject of 2.5 MB in direct mode', () => post('/v1/email', email({ subject: 'x'.repeat(2_500_000) })), exactly(400, subjectTooLong)),
  hostile('an SMS to 50,000 numbers', () => post('/v1/sms/send', JSON.stringify({ message: 'hi', mobile_numbers: Array(50_000).fill('+5215512345678') })), exactly(400, { message: 'Too many mobile numbers', detail: 'at most 1000 numbers' })),
  hostile('an email with 2,000 attachments', () => post('/v1/email', email({ attachments: Array.from({ length: 2_000 }, (_, i) => ({ filename: `${i}.txt`, path: 'data:text/plain;base64,aGk=' })) })), exactly(400, { message: 'Too many attachments', detail: 'at most 20 attachments' })),
  hostile('metadata of 1 MB', () => post('/v1/email', email({ metadata: { blob: 'x'.repeat(1_000_000) } })), exactly(400, { message: 'Invalid request, a field has the wrong type or value', detail: 'metadata must be at most 4096 bytes as JSON' })),
  hostile('a template of 100,000 placeholders under 1 MB', () => post('/v1/email/templates', JSON.stringify({ name: 'many', html: '{{a}}'.repeat(100_000) })), exactly(400, { message: 'Template has too many placeholders', detail: 'at most 5000 {{…}} tags' })),
];

/**
 * Registers a test, or a todo without a body while `owner`'s fix is not on main; a `todo`
 * reason runs it and reports its failures as todo (time limits a busy machine may miss).
 */
function hostileTest(name: string, owner: string | undefined, body: () => Promise<void>, todo?: string): void {
  if (owner !== undefined) test(name, { todo: `its limit comes with ${owner}, not on main yet` });
  else test(name, { skip, ...(todo === undefined ? {} : { todo }) }, body);
}

/**
 * Sends the request, checks its answer and the log on every try, and returns once one
 * try was answered within 1 s while /healthz answered within 100 ms.
 */
async function checkCase(hostileCase: Omit<HostileCase, 'name' | 'owner'>): Promise<void> {
  const tries: string[] = [];
  for (let attempt = 1; attempt <= TIME_TRIES; attempt++) {
    const request = hostileCase.request();
    const errorsBefore = herald.errorLines().length;
    const from = Date.now();
    const answer = await call(request.method, request.path, request.body, request.headers);
    const elapsed = Date.now() - from;
    // What is answered and logged must hold on every try; only the clock gets another chance.
    await (hostileCase.expect ?? expectClientError)(answer);
    const health = await probe.worstSince(from);
    assert.ok(health.probes > 0, 'no health probe ran');
    assert.equal(health.failed, 0);
    // A log line reaches the pipe after the answer has gone out; give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepStrictEqual(herald.errorLines().slice(errorsBefore), []);
    tries.push(`answered in ${elapsed} ms, /healthz within ${health.maxMs} ms (${health.probes} probes)`);
    if (elapsed < ANSWER_MS && health.maxMs < HEALTH_MS) return;
  }
  assert.fail(`never within ${ANSWER_MS} ms and /healthz ${HEALTH_MS} ms in ${TIME_TRIES} tries: ${tries.join('; ')}`);
}

for (const hostileCase of CASES) {
  hostileTest(`${hostileCase.name}: its 4xx within 1 s, nothing logged at error, /healthz within 100 ms`, hostileCase.owner, () => checkCase(hostileCase), hostileCase.todo);
}

hostileTest('40 template sends with distinct 5 MB subjects: each its 4xx within 1 s, /healthz within 100 ms', undefined, async () => {
  for (let i = 0; i < 40; i++) {
    // Distinct from the first bytes, so no cache could answer one from another.
    await checkCase({ request: () => post('/v1/email', templateEmail(`${i} {{a}} ${'y'.repeat(5_000_000)}`)), expect: exactly(400, subjectTooLong) });
  }
});


test('a bare CR in a body is sent as CRLF: 200 within 1 s, and the captured MIME has no bare CR', { skip }, async () => {
  const errorsBefore = herald.errorLines().length;
  const from = Date.now();
  const answer = await send('/v1/email', email({ body: 'line one\rline two\r\rend' }));
  assert.ok(Date.now() - from < ANSWER_MS);
  assert.equal(answer.status, 200, answer.body);
  const msgid = (JSON.parse(answer.body) as { to: { msgid: string }[] }).to[0]?.msgid;
  let raw: Answer = { status: 0, body: '' };
  for (let tries = 0; tries < 100 && raw.status !== 200; tries++) {
    raw = await call('GET', `/v1/messages/${msgid}/raw`, undefined, withKey());
    if (raw.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(raw.status, 200, raw.body);
  assert.match(raw.body, /line one\r\nline two\r\n\r\nend/);
  assert.doesNotMatch(raw.body, /\r(?!\n)/);
  assert.deepStrictEqual(herald.errorLines().slice(errorsBefore), []);
});

test('an unauthenticated body sent at 1 byte/s is answered 403 within 1 s and its socket closed', { skip }, async () => {
  const socket = connect(Number(new URL(herald.url).port), '127.0.0.1');
  await once(socket, 'connect');
  const from = Date.now();
  socket.write('POST /v1/email HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => { received += chunk; });
  const closed = once(socket, 'close');
  const drip = setInterval(() => { if (!socket.destroyed) socket.write('{'); }, 1000);
  try {
    while (!received.includes('\r\n\r\n') && Date.now() - from < 5000) await new Promise((resolve) => setTimeout(resolve, 10));
    const answeredMs = Date.now() - from;
    assert.match(received, /^HTTP\/1\.1 403 /);
    assert.ok(answeredMs < ANSWER_MS, `answered in ${answeredMs} ms`);
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('socket still open 5 s after the answer')), 5000))]);
    assert.ok(received.endsWith('{"error":"No API Key sent"}'), received);
  } finally {
    clearInterval(drip);
    socket.destroy();
  }
});

test('afterwards the process is alive and its resident memory is back within 160 MB of where it started', { skip }, async () => {
  assert.equal(herald.exit, undefined, herald.output());
  const health = await call('GET', '/healthz', undefined);
  assert.equal(health.status, 200);
  // Memory comes back at the next collections: allow the heap some seconds to shrink.
  let rss = Number.POSITIVE_INFINITY;
  for (let tries = 0; tries < 75 && rss - rssBefore >= RSS_GROWTH_LIMIT_BYTES; tries++) {
    rss = residentBytes();
    if (rss - rssBefore >= RSS_GROWTH_LIMIT_BYTES) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);
  assert.ok(rss - rssBefore < RSS_GROWTH_LIMIT_BYTES, `resident ${mb(rss)} MB, ${mb(rssBefore)} MB before the hostile inputs`);
  assert.deepStrictEqual(herald.errorLines(), []);
});
