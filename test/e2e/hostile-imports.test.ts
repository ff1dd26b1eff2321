// Hostile contact imports and heavy reads against a started service (issue 19, item 1):
// herald as `npm start` runs it (deploy/herald) in a child process on SQLite, fed what
// an ordinary email key can send — a 210 MB contact whose attribute is an array of
// millions of zeros, a 200 MB string, a 100,000-row CSV, a segment count of 85 and of
// 50 conditions over its contacts — and an import killed with its process (SIGKILL)
// until it is quarantined. Every request is answered within its limit, /healthz (probed
// from a thread of its own) within 100 ms throughout, the process never dies of it, its
// peak resident memory stays under 450 MB and ends under 300 MB, and it logs no error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startHerald, type HeraldProcess } from '../support/herald-process.ts';
import { probeHealth, type HealthProbe } from '../support/health-probe.ts';

const ADMIN_TOKEN = 'hostile-imports-admin-token-3e8d1c7b9a';
const HEALTH_MS = 100;
const ANSWER_MS = 1000;
const PEAK_RSS_BYTES = 450 * 1024 * 1024;
const RSS_LIMIT_BYTES = 300 * 1024 * 1024;
const MIB = 1024 * 1024;
const MAX_ATTEMPTS = 2;
const READ_LIMIT_MS = 10_000;
// The time limits measure herald's event loop, not the test files running beside it: npm
// test runs this file alone after the parallel pass (HERALD_TEST_ALONE=1), where it skips.
const skip = process.env.HERALD_TEST_ALONE === '1' ? false : 'runs alone after the other test files (npm test sets HERALD_TEST_ALONE=1)';

let herald: HeraldProcess;
let probe: HealthProbe;
let dataDir: string;
let apiKey: string;
let list: string;

const env = (): Record<string, string> => ({
  HERALD_DATABASE_URL: `sqlite:${join(dataDir, 'herald.db')}`, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_IMPORT_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
  HERALD_METRICS_PORT: '0', HERALD_METRICS_HOST: '127.0.0.1',
  // Room for a count over 100,000 contacts on a slow machine; the bound itself is tested in test/http/segment-bounds.test.ts.
  HERALD_HEAVY_READ_TIMEOUT_MS: String(READ_LIMIT_MS),
});

/** The metrics listener's port, from its log line. */
function metricsPort(): number {
  for (const line of herald.output().split('\n')) {
    if (!line.includes('metrics listening at /metrics')) continue;
    return (JSON.parse(line) as { port: number }).port;
  }
  throw new Error(`no metrics listener in the log:\n${herald.output().slice(-2000)}`);
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
}

/** One request; `body` may be a generator of chunks, written with backpressure (the test never holds a hostile body whole). */
function call(method: string, path: string, body?: string | (() => Generator<string>), headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${herald.url}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (typeof body !== 'function') {
      req.end(body);
      return;
    }
    const chunks = body();
    const pump = (): void => {
      for (let next = chunks.next(); ; next = chunks.next()) {
        if (next.done === true) {
          req.end();
          return;
        }
        if (!req.write(next.value)) {
          req.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

const json = (answer: Answer): Record<string, unknown> => JSON.parse(answer.body) as Record<string, unknown>;

/** `repeat` written `times` times after `head`, then `tail`, in pieces of about a megabyte. */
function* repeated(head: string, repeat: string, times: number, tail: string): Generator<string> {
  yield head;
  const perPiece = Math.max(1, Math.floor(MIB / repeat.length));
  const piece = repeat.repeat(perPiece);
  let left = times;
  for (; left >= perPiece; left -= perPiece) yield piece;
  yield repeat.repeat(left) + tail;
}

/** The 210 MB contact of the issue: one attribute, an array of 110 million zeros. */
const zerosContact = () => repeated('[{"email":"zeros@example.org","attributes":{"z":[', '0,', 110_000_000, '0]}}, {"email":"after@example.org"}]');
/** The single 200 MB JSON string. */
const hugeString = () => repeated('[{"email":"string@example.org","name":"', 'a', 200 * MIB, '"}, {"email":"after2@example.org"}]');

/** Uploads, then waits for the import to end; its view. */
async function importAndWait(body: string | (() => Generator<string>), type: string, query = ''): Promise<{ upload: Answer; view: Record<string, unknown> }> {
  const upload = await call('POST', `/v1/contacts/imports${query}`, body, { 'content-type': type });
  assert.equal(upload.status, 202, upload.body.slice(0, 300));
  const id = json(upload)['import_id'] as string;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const view = await call('GET', `/v1/contacts/imports/${id}`);
    assert.ok(view.ms < ANSWER_MS, `GET the import took ${Math.round(view.ms)} ms`);
    if (json(view)['status'] !== 'running') return { upload, view: json(view) };
    assert.ok(Date.now() < deadline, 'the import did not end within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The process's resident memory now and at its peak (VmHWM), in bytes. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function assertHealthySince(from: number, what: string): Promise<void> {
  const health = await probe.worstSince(from);
  assert.equal(herald.exit, undefined, `herald ended during ${what}:\n${herald.output()}`);
  assert.equal(health.failed, 0, `/healthz failed ${health.failed} times during ${what}`);
  assert.ok(health.maxMs < HEALTH_MS, `/healthz took ${health.maxMs} ms during ${what}`);
  assert.ok(memory(herald.pid).peak < PEAK_RSS_BYTES, `peak resident ${Math.round(memory(herald.pid).peak / MIB)} MB during ${what}`);
}

async function start(): Promise<void> {
  herald = await startHerald('all', env(), 60_000, 'deploy-script');
  probe = probeHealth(herald.url);
  // The probe's first fetch loads its HTTP client: wait for it to be answered once.
  await probe.worstSince(Date.now(), 30_000);
}

before(async () => {
  if (skip !== false) return;
  dataDir = mkdtempSync(join(tmpdir(), 'herald-hostile-imports-'));
  await start();
  const created = await new Promise<Answer>((resolve, reject) => {
    const body = JSON.stringify({ name: 'mallory', messagesLeft: 1_000_000, rateLimitPerSecond: 10_000 });
    const req = request(`${herald.url}/admin/v1/accounts`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: 0 }));
    });
    req.on('error', reject);
    req.end(body);
  });
  assert.equal(created.status, 201, created.body);
  apiKey = (JSON.parse(created.body) as { apiKey: { apiKey: string } }).apiKey.apiKey;
  const made = await call('POST', '/v1/lists', JSON.stringify({ name: 'Everyone', optin: 'single' }), { 'content-type': 'application/json' });
  assert.equal(made.status, 201, made.body);
  list = json(made)['list_id'] as string;
});

after(async () => {
  await probe?.stop();
  await herald?.kill('SIGTERM');
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

test('a 210 MB contact whose attribute is an array of millions of zeros is one refused row', { skip }, async () => {
  const from = Date.now();
  const { upload, view } = await importAndWait(zerosContact, 'application/json');
  assert.ok(upload.ms < 60_000, `the upload took ${Math.round(upload.ms)} ms`);
  assert.deepStrictEqual([view['status'], view['rows'], view['created'], view['rejected'], view['errors']], [
    'finished', 2, 1, 1, [{ row: 1, message: 'the row is longer than 65536 characters' }],
  ]);
  await assertHealthySince(from, 'the 210 MB contact');
});

test('a 200 MB JSON string is one refused row', { skip }, async () => {
  const from = Date.now();
  const { view } = await importAndWait(hugeString, 'application/json');
  assert.deepStrictEqual([view['status'], view['rows'], view['created'], view['rejected'], view['errors']], [
    'finished', 2, 1, 1, [{ row: 1, message: 'the row is longer than 65536 characters' }],
  ]);
  await assertHealthySince(from, 'the 200 MB string');
});

test('a 100,000-row CSV import keeps /healthz within 100 ms, and so do segment counts over its contacts', { skip }, async () => {
  const rows = 100_000;
  const from = Date.now();
  function* csv(): Generator<string> {
    yield 'email,city,note\n';
    for (let from = 0; from < rows; from += 10_000) {
      yield Array.from({ length: 10_000 }, (_, i) => `c${from + i}@example.org,${(from + i) % 3 === 0 ? 'Lima' : 'Quito'},${'x'.repeat(40)}\n`).join('');
    }
  }
  const { view } = await importAndWait(csv, 'text/csv', `?list_id=${list}`);
  assert.deepStrictEqual([view['status'], view['rows'], view['created'], view['rejected']], ['finished', rows, rows, 0]);
  await assertHealthySince(from, 'the CSV import');

  const orOf = (n: number) => ({ or: Array.from({ length: Math.ceil(n / 10) }, (_, i) => ({
    or: Array.from({ length: Math.min(10, n - i * 10) }, (_, j) => ({ field: 'attributes.note', contains: `needle-${i}-${j}` })),
  })) });
  const counting = Date.now();
  const refused = await call('POST', '/v1/segments/count', JSON.stringify({ lists: [list], filter: orOf(85) }), { 'content-type': 'application/json' });
  assert.deepStrictEqual([refused.status, json(refused)], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'filter has more than 50 conditions' }]);
  const counted = await call('POST', '/v1/segments/count', JSON.stringify({ lists: [list], filter: orOf(50) }), { 'content-type': 'application/json' });
  // Answered within the read limit and a second: counted, or 503 past the limit.
  assert.ok(counted.ms < READ_LIMIT_MS + 1000, `the count took ${Math.round(counted.ms)} ms`);
  if (counted.status === 200) assert.deepStrictEqual(json(counted), { contacts: 0 });
  else assert.deepStrictEqual([counted.status, json(counted)['message']], [503, 'The request took too long to answer']);
  const lima = await call('POST', '/v1/segments/count', JSON.stringify({ lists: [list], filter: { field: 'attributes.city', eq: 'Lima' } }), { 'content-type': 'application/json' });
  assert.deepStrictEqual([lima.status, json(lima)], [200, { contacts: 33_334 }]);
  await assertHealthySince(counting, 'the segment counts');
});

test('an import killed with its process each time it is taken up ends failed after HERALD_IMPORT_MAX_ATTEMPTS, /healthz answering after every restart', { skip }, async () => {
  // 100 MB in one element: seconds of reading, time enough to be killed in.
  const upload = await call('POST', '/v1/contacts/imports', () => repeated('[{"email":"poison@example.org","attributes":{"z":[', '0,', 50_000_000, '0]}}]'), { 'content-type': 'application/json' });
  assert.equal(upload.status, 202, upload.body);
  const id = json(upload)['import_id'] as string;
  const attempts = (): number => {
    const db = new DatabaseSync(join(dataDir, 'herald.db'), { readOnly: true, timeout: 5000 });
    try {
      return Number((db.prepare('select attempts from contact_imports where id = ?').get(id) as { attempts: number }).attempts);
    } finally {
      db.close();
    }
  };
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    // Killed as soon as its runner has counted the attempt, before it can finish.
    const deadline = Date.now() + 30_000;
    while (attempts() < attempt) {
      assert.ok(Date.now() < deadline, `attempt ${attempt} was never taken`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await probe.stop();
    await herald.kill('SIGKILL');
    const restarted = Date.now();
    await start();
    await assertHealthySince(restarted, `the restart after attempt ${attempt}`);
    assert.deepStrictEqual(herald.errorLines(), []);
  }
  const deadline = Date.now() + 30_000;
  let view: Record<string, unknown>;
  do {
    await new Promise((resolve) => setTimeout(resolve, 100));
    view = json(await call('GET', `/v1/contacts/imports/${id}`));
    assert.ok(Date.now() < deadline, 'the import was never quarantined');
  } while (view['status'] === 'running');
  assert.deepStrictEqual([view['status'], view['rows'], view['failure']], [
    'failed', 0, `The import was taken up ${MAX_ATTEMPTS} times without finishing a batch (its reading stopped the process or failed each time), so it is not taken up again; the rows before were imported`,
  ]);
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort()}/metrics`)).text();
  assert.deepStrictEqual(metrics.split('\n').filter((line) => line.startsWith('herald_jobs_quarantined_total')), ['herald_jobs_quarantined_total{job="imports"} 1']);
  assert.ok(herald.output().includes('contact import quarantined'), herald.output().slice(-2000));
});

test('the process ends alive, its resident memory back under 300 MB, with no error logged', { skip }, async () => {
  assert.equal(herald.exit, undefined);
  let rss = Number.POSITIVE_INFINITY;
  for (let tries = 0; tries < 50 && rss >= RSS_LIMIT_BYTES; tries++) {
    rss = memory(herald.pid).rss;
    if (rss >= RSS_LIMIT_BYTES) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.ok(rss < RSS_LIMIT_BYTES, `resident ${Math.round(rss / MIB)} MB`);
  assert.deepStrictEqual(herald.errorLines(), []);
});
