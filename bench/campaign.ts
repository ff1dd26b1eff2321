import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSmtpSink } from '../test/peers/smtp-sink.ts';
import { startChild } from './lib/child.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, seconds, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase } from './lib/databases.ts';
import type { HeraldStats } from './lib/herald-child.ts';
import { startHerald } from './lib/herald-process.ts';
import type { NodemailerPrepare } from './lib/nodemailer-child.ts';
import { cpuSeconds } from './lib/proc-stats.ts';
import { relayToSink, watchSink } from './lib/sink-arrivals.ts';
import { printProfile, profileClockUs } from './lib/profile-summary.ts';
import type { SqlTiming } from './lib/sql-timing.ts';

// A campaign, end to end: N = 100,000 contacts on a list, imported as CSV (timed on its
// own: rows/s, from the first byte of the upload to `finished`), a segment count over
// them (ms, the median of a few), then POST /v1/campaigns/:id/send, timed from the send to the last message at a
// local SMTP sink — the runner walking the audience in batches, personalising each
// message (name, an attribute, the signed unsubscribe link), the outbox worker relaying
// through HERALD_EMAIL_TRANSPORT=smtp://127.0.0.1:<sink> with STARTTLS. herald runs in a
// child process on a SQLite file (then PostgreSQL with TEST_POSTGRES_URL). Baseline in
// the same run: the raw nodemailer pool of bench/email-e2e.ts (5 connections, 128
// sendMail in flight, messages built beforehand) sending N messages into the same sink,
// before and after herald.

export const NAME = 'campaign';
const DEFAULTS: BenchDefaults = { n: 100_000, clients: 1, timeoutS: 1_200 };
/** The issue's target: ≥ 0.7 of raw nodemailer. */
const TARGET_RATIO = 0.7;
const WORKER_SLOTS = 128;
/**
 * Recipient domains of the audience, in turn: a campaign keeps its default per-domain
 * limit (600 messages a minute to each), which 100 domains put at 1,000 messages/s, above
 * what the worker reaches here; one domain would make the benchmark measure that limit.
 */
const DOMAINS = 100;
/**
 * Messages of each baseline round: its rate is steady well before this many, and two
 * rounds of 100,000 would double the benchmark's time for no better figure.
 */
const BASELINE_MAX = 20_000;

/** Segments counted over the audience once imported (the issue's "segment count on 100,000 contacts"). */
const SEGMENTS: readonly [string, Record<string, unknown>][] = [
  ['list', {}],
  ['attribute', { filter: { field: 'attributes.city', eq: 'City 7' } }],
];
const SEGMENT_ROUNDS = 5;
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function csvOf(n: number): string {
  const rows = ['email,name,city'];
  for (let i = 0; i < n; i += 1) rows.push(`reader${i}@example${i % DOMAINS}.org,Reader ${i},City ${i % 50}`);
  return `${rows.join('\n')}\n`;
}

const BODY = '<html><body><h1>News for {{contact.name}}</h1><p>What happens in {{contact.attributes.city}} this month, '
  + 'and <a href="https://shop.example.com/july">our July offers</a>.</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p></body></html>';

export async function campaign(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  const { n } = options;
  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    const sink = await startSmtpSink();
    defer(() => sink.close());
    const { received, take } = watchSink(sink, budget);

    const mailer = await budget.within(startChild<Record<string, never>>(new URL('./lib/nodemailer-child.ts', import.meta.url), { signal: budget.signal }), () => 'starting the baseline');
    onAbort(() => mailer.kill());
    defer(() => mailer.close());
    let sent = 0;
    const baselineRound = async (count: number, what: string): Promise<{ rate: number; ms: number }> => {
      await budget.within(mailer.call('prepare', { port: sink.port, from: sent, count, dkim: options.dkim } satisfies NodemailerPrepare), () => `building ${what}`);
      sent += count;
      const started = performance.now();
      const done = mailer.call('send', { inFlight: WORKER_SLOTS });
      done.catch(() => {});
      const ended = await received(count, what);
      await budget.within(done, () => `${what} finished`);
      take();
      return { rate: count / ((ended - started) / 1000), ms: ended - started };
    };
    await baselineRound(Math.min(n, 500), 'the baseline warm-up');
    const baselineN = Math.min(n, BASELINE_MAX);
    const before = await baselineRound(baselineN, 'the baseline (before herald)');
    progress(`baseline before herald: ${before.rate.toFixed(0)} messages/s`);

    const csv = csvOf(n);
    const results: {
      kind: string; description: string; rate: number; ms: number; bytes: number; cpuMsPerMessage: number; stats: HeraldStats;
      importMs: number; counts: { label: string; ms: number; contacts: number }[];
      sql: SqlTiming[]; profileDir: string; window: [number, number];
    }[] = [];
    for (const kind of databaseKinds(options.db)) {
      const database = await budget.within(freshDatabase(kind), () => `creating a ${kind} store`);
      defer(() => database.drop());
      // Kept after the run, for a closer look (e.g. in Chrome DevTools).
      const profileDir = options.profile ? await mkdtemp(join(tmpdir(), `herald-bench-profile-${kind}-`)) : '';
      const herald = await startHerald({
        database, budget, logLevel: options.logLevel, dkim: options.dkim, messagesLeft: n, profileDir,
        env: { ...relayToSink(sink), HERALD_PUBLIC_URL: 'https://herald.example.com' },
      });
      onAbort(() => herald.kill());
      defer(() => herald.close());
      const base = `http://127.0.0.1:${herald.ready.port}`;
      const call = async (method: string, path: string, body?: string, type = 'application/json'): Promise<Record<string, unknown>> => {
        const request = () => fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${herald.ready.apiKey}`, ...(body === undefined ? {} : { 'content-type': type }) }, ...(body === undefined ? {} : { body }) });
        // A read on a pooled connection the server just closed (keep-alive) is asked again once.
        const res = method === 'GET' ? await request().catch(request) : await request();
        const json = (await res.json()) as Record<string, unknown>;
        if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
        return json;
      };
      const list = String((await call('POST', '/v1/lists', JSON.stringify({ name: 'Readers', optin: 'single' })))['list_id']);
      progress(`${kind}: importing ${n} contacts (${(csv.length / 1e6).toFixed(1)} MB of CSV)`);
      const importStarted = performance.now();
      const importId = String((await call('POST', `/v1/contacts/imports?list_id=${list}`, csv, 'text/csv'))['import_id']);
      const imported = await budget.within((async () => {
        for (;;) {
          const view = await call('GET', `/v1/contacts/imports/${importId}`);
          if (view['status'] !== 'running') return view;
          await new Promise((r) => setTimeout(r, 100));
        }
      })(), () => `the ${kind} import`);
      const importMs = performance.now() - importStarted;
      if (imported['status'] !== 'finished' || imported['created'] !== n) throw new Error(`the import ended ${JSON.stringify(imported)}`);
      progress(`${kind}: imported ${n} rows in ${seconds(importMs)} s; counting segments`);
      const counts: { label: string; ms: number; contacts: number }[] = [];
      for (const [label, segment] of SEGMENTS) {
        const times: number[] = [];
        let contacts = 0;
        // The first answer warms the caches and is not counted.
        for (let round = 0; round <= SEGMENT_ROUNDS; round += 1) {
          const t0 = performance.now();
          contacts = Number((await call('POST', '/v1/segments/count', JSON.stringify({ lists: [list], ...segment })))['contacts']);
          if (round > 0) times.push(performance.now() - t0);
        }
        counts.push({ label, ms: median(times), contacts });
      }
      const id = String((await call('POST', '/v1/campaigns', JSON.stringify({
        name: 'July', subject: 'July news for {{contact.name}}', from: { email: 'news@example.com', name: 'Example News' },
        replyTo: { email: 'help@example.com', name: 'Help' }, body: BODY, lists: [list],
      })))['campaign_id']);
      progress(`${kind}: sending the campaign to ${n} contacts`);
      if (options.profile) await herald.call('recordSqlTiming', { on: true, reset: true });
      const cpuBefore = cpuSeconds(herald.pid);
      const from = profileClockUs();
      const started = performance.now();
      await call('POST', `/v1/campaigns/${id}/send`);
      const ended = await received(n, `the ${kind} campaign`);
      const to = profileClockUs();
      const cpuMsPerMessage = ((cpuSeconds(herald.pid) - cpuBefore) * 1000) / n;
      const messages = take();
      const stats = await budget.within(herald.call<HeraldStats>('stats', { waitMs: 10_000 }), () => `herald on ${kind} recorded the outcomes`);
      const rate = n / ((ended - started) / 1000);
      progress(`${kind}: ${rate.toFixed(0)} messages/s`);
      const sql = options.profile ? await budget.within(herald.call<SqlTiming[]>('sqlTimings'), () => 'reading the SQL timings') : [];
      results.push({ kind, description: database.description, rate, ms: ended - started, bytes: messages.bytes / messages.count, cpuMsPerMessage, stats, sql, profileDir, window: [from, to], importMs, counts });
      await budget.within(herald.close(), () => `closing herald on ${kind}`);
    }

    const after = await baselineRound(baselineN, 'the baseline (after herald)');
    progress(`baseline after herald: ${after.rate.toFixed(0)} messages/s`);
    const baselineRate = (before.rate + after.rate) / 2;
    const figures: Figure[] = [{
      name: `${NAME}.baseline`, value: baselineRate, unit: 'messages/s',
      conditions: { n: baselineN, sender: `nodemailer 5-connection pool, ${WORKER_SLOTS} sendMail in flight, messages built beforehand`, before: Number(before.rate.toFixed(1)), after: Number(after.rate.toFixed(1)) },
    }];
    const notes = [`baseline before ${before.rate.toFixed(0)}/s (${seconds(before.ms)} s), after ${after.rate.toFixed(0)}/s (${seconds(after.ms)} s)`];
    for (const r of results) {
      const ratio = r.rate / baselineRate;
      figures.push(
        { name: `${NAME}.${r.kind}.herald`, value: r.rate, unit: 'messages/s', conditions: { n, database: r.description, seconds: seconds(r.ms), avgMessageBytes: Math.round(r.bytes), cpuMsPerMessage: Number(r.cpuMsPerMessage.toFixed(3)), statuses: r.stats.statuses } },
        { name: `${NAME}.${r.kind}.ratio`, value: ratio, unit: 'herald/baseline', conditions: { target: `≥ ${TARGET_RATIO}`, met: ratio >= TARGET_RATIO } },
        { name: `${NAME}.${r.kind}.import`, value: n / (r.importMs / 1000), unit: 'rows/s', conditions: { rows: n, columns: 'email,name,city', seconds: seconds(r.importMs), from: 'the first byte of the upload to status finished' } },
        ...r.counts.map((c): Figure => ({
          name: `${NAME}.${r.kind}.segment-count.${c.label}`, value: c.ms, unit: 'ms',
          conditions: { contacts: n, matching: c.contacts, rounds: SEGMENT_ROUNDS, aggregate: 'median of HTTP round trips, the first unmeasured' },
        })),
      );
      notes.push(`${r.kind}: import of ${n} CSV rows ${seconds(r.importMs)} s (${(n / (r.importMs / 1000)).toFixed(0)} rows/s); segment count on ${n} contacts ${r.counts.map((c) => `${c.label} ${c.ms.toFixed(0)} ms`).join(', ')} (medians; bench/audience.ts measures more kinds)`);
      notes.push(`herald/${r.kind}: send → last message at the sink ${seconds(r.ms)} s, ${r.rate.toFixed(0)} messages/s = ${(100 * ratio).toFixed(1)} % of the baseline (target ${100 * TARGET_RATIO} %: ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}); ${Math.round(r.bytes)} B/message, CPU ${r.cpuMsPerMessage.toFixed(2)} ms/message`);
    }
    report(`${NAME}: a campaign to ${n} contacts, send → SMTP sink`, figures, notes);
    for (const r of results) {
      if (!options.profile) continue;
      process.stdout.write(`\n--profile, herald on ${r.kind}: from the send to the last message at the sink${r.kind === 'sqlite' ? '' : '; SQL runs in the PostgreSQL server, not timed here'}\n`);
      await printProfile(NAME, r.sql, r.profileDir, { windows: [r.window], per: { count: n, unit: 'message' } });
    }
  });
}
