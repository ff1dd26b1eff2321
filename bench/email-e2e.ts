import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSmtpSink } from '../test/peers/smtp-sink.ts';
import { startChild } from './lib/child.ts';
import { harness, onPush, parseBenchOptions, progress, report, rerunCommand, seconds, whenCount, type Figure } from './lib/common.ts';
import { emailRequest } from './lib/email-content.ts';
import type { HeraldReady, HeraldStats } from './lib/herald-child.ts';
import { postMany } from './lib/http-load.ts';
import type { NodemailerPrepare } from './lib/nodemailer-child.ts';
import { printProfile } from './lib/profile-summary.ts';
import type { SqlTiming } from './lib/sql-timing.ts';

// Email, end to end: N one-recipient emails from HTTP accept (POST /v1/email over a
// listening socket, a fixed number of concurrent fetch clients) to their arrival at a
// local SMTP sink, herald relaying through HERALD_EMAIL_TRANSPORT=smtp://127.0.0.1:<sink>
// on a SQLite file in the temporary directory. Baseline, in the same run: a raw
// nodemailer pool (5 connections, as herald's relay) sending N equivalent messages
// into the same kind of sink. Both the sender and the baseline run in a child process;
// the sink and the HTTP clients run here.

export const NAME = 'email-e2e';
const DEFAULTS = { n: 2000, clients: 16 };
/** herald's worker keeps this many deliveries per channel in flight (DEFAULT_WORKER_OPTIONS.concurrency). */
const WORKER_SLOTS = 128;
const RELAY_POOL = 5;

export async function emailE2e(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const { n, clients } = options;
  const warmup = Math.min(100, n);
  const rerun = rerunCommand(NAME, options, DEFAULTS);

  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    const sink = await startSmtpSink();
    defer(() => sink.close());
    const arrivals = new EventEmitter();
    onPush(sink.messages, () => arrivals.emit('message'));
    const received = (target: number, what: string): Promise<number> =>
      budget.within(
        whenCount(() => sink.messages.length, target, (check) => {
          arrivals.on('message', check);
          return () => arrivals.off('message', check);
        }),
        () => `${what} (${sink.messages.length} of ${target} messages at the sink)`,
      );
    const takeMessages = (): { count: number; bytes: number } => {
      const taken = sink.messages.splice(0);
      return { count: taken.length, bytes: taken.reduce((sum, m) => sum + m.raw.length, 0) };
    };

    // ---- Baseline: raw nodemailer pool → sink, measured before and after herald (the
    // machine's noise then weighs on both sides alike); the pool idles in between.
    progress(`baseline: nodemailer pool of ${RELAY_POOL}, ${n} messages (+${Math.min(n, 500)} warm-up), before and after herald`);
    const mailer = await budget.within(startChild<Record<string, never>>(new URL('./lib/nodemailer-child.ts', import.meta.url), { signal: budget.signal }), () => 'starting the baseline');
    onAbort(() => mailer.kill());
    defer(() => mailer.close());
    let sent = 0;
    const baselineRound = async (count: number, what: string): Promise<{ rate: number; ms: number; bytes: number; connections: number }> => {
      await budget.within(mailer.call('prepare', { port: sink.port, from: sent, count, dkim: options.dkim } satisfies NodemailerPrepare), () => `building the messages of ${what}`);
      sent += count;
      const connectionsBefore = sink.connections();
      const started = performance.now();
      const done = mailer.call('send', { inFlight: WORKER_SLOTS });
      done.catch(() => {}); // awaited below; an aborted run must not leave it unhandled
      const ended = await received(count, what);
      await budget.within(done, () => `${what} finished`);
      const taken = takeMessages();
      return { rate: count / ((ended - started) / 1000), ms: ended - started, bytes: taken.bytes / taken.count, connections: sink.connections() - connectionsBefore };
    };
    // A short warm-up leaves the baseline half-compiled (its first round then reads low).
    const baselineWarmup = Math.min(n, 500);
    await baselineRound(baselineWarmup, 'the baseline warm-up');
    const before = await baselineRound(n, 'the baseline (before herald)');
    progress(`baseline before herald: ${before.rate.toFixed(0)} messages/s`);

    // ---- herald: HTTP accept → SQLite file → outbox worker → SMTP relay → sink.
    const dir = await mkdtemp(join(tmpdir(), 'herald-bench-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    // Kept after the run, for a closer look (e.g. in Chrome DevTools).
    const profileDir = options.profile ? await mkdtemp(join(tmpdir(), 'herald-bench-profile-')) : '';
    const databaseUrl = `sqlite:${join(dir, 'herald.db')}`;
    progress(`herald: ${databaseUrl}, ${clients} HTTP clients, ${n} messages (+${warmup} warm-up)`);
    const herald = await budget.within(
      startChild<HeraldReady>(new URL('./lib/herald-child.ts', import.meta.url), {
        env: {
          HERALD_DATABASE_URL: databaseUrl,
          HERALD_HOST: '127.0.0.1',
          HERALD_PORT: '0',
          HERALD_PUBLIC_URL: 'https://herald.example.com',
          HERALD_ADMIN_TOKEN: 'bench-admin-token-0123456789',
          HERALD_EMAIL_TRANSPORT: `smtp://127.0.0.1:${sink.port}`,
          HERALD_LOG_LEVEL: options.logLevel,
          // The sink's certificate is smtp-server's self-signed (and expired) one, and the
          // relay URL has no way to skip verification: STARTTLS still runs, unverified.
          NODE_TLS_REJECT_UNAUTHORIZED: '0',
          BENCH_DKIM: options.dkim ? 'on' : 'off',
          BENCH_MESSAGES_LEFT: String(n + warmup),
          BENCH_SQL_TIMING: options.profile ? 'on' : 'off',
        },
        execArgv: ['--disable-warning=Warning', ...(options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
        signal: budget.signal,
      }),
      () => 'starting herald',
    );
    onAbort(() => herald.kill());
    defer(() => herald.close());
    const url = `http://127.0.0.1:${herald.ready.port}/v1/email`;
    const post = (count: number, offset: number) =>
      budget.within(
        postMany({ url, apiKey: herald.ready.apiKey, count, offset, clients, body: emailRequest, signal: budget.signal }),
        () => `posting to herald (${sink.messages.length} messages at the sink so far)`,
      );

    await post(warmup, 0);
    await received(warmup, 'warming up herald');
    takeMessages();
    const heraldConnectionsBefore = sink.connections();
    const load = await post(n, warmup);
    const heraldEnd = await received(n, 'herald delivered');
    const heraldMessages = takeMessages();
    const heraldConnections = sink.connections() - heraldConnectionsBefore;
    const stats = await budget.within(herald.call<HeraldStats>('stats', { waitMs: 10_000 }), () => 'herald recorded the outcomes');
    progress(`herald: ${(n / ((heraldEnd - load.startedAt) / 1000)).toFixed(0)} messages/s`);
    const sql = options.profile ? await budget.within(herald.call<SqlTiming[]>('sqlTimings'), () => 'reading the SQL timings') : [];
    await budget.within(herald.close(), () => 'closing herald');
    const heraldRate = n / ((heraldEnd - load.startedAt) / 1000);

    const after = await baselineRound(n, 'the baseline (after herald)');
    progress(`baseline after herald: ${after.rate.toFixed(0)} messages/s`);
    await budget.within(mailer.close(), () => 'closing the baseline');
    const baselineRate = (before.rate + after.rate) / 2;
    const acceptRate = n / ((load.finishedAt - load.startedAt) / 1000);

    const shared = { n, warmup, recipientsPerRequest: 1, dkim: options.dkim, smtp: 'STARTTLS (unverified), loopback smtp-server sink', sinkInProcessOf: 'load generator' };
    const heraldConditions = {
      ...shared, clients, transport: `smtp relay, pool ${RELAY_POOL}`, database: 'sqlite file in os.tmpdir (WAL, synchronous=FULL)',
      logLevel: `${options.logLevel} (stdout to /dev/null)`, seconds: seconds(heraldEnd - load.startedAt),
      avgMessageBytes: Math.round(heraldMessages.bytes / heraldMessages.count), newSmtpConnections: heraldConnections, messageStatuses: stats.statuses,
    };
    const baselineConditions = {
      ...shared, warmup: baselineWarmup, sender: `nodemailer ${RELAY_POOL}-connection pool, maxMessages 100, ${WORKER_SLOTS} sendMail in flight, messages built beforehand`,
      aggregate: 'mean of a round before and a round after herald', before: Number(before.rate.toFixed(1)), after: Number(after.rate.toFixed(1)),
      seconds: [seconds(before.ms), seconds(after.ms)], avgMessageBytes: Math.round(before.bytes), newSmtpConnections: [before.connections, after.connections],
    };
    const figures: Figure[] = [
      { name: `${NAME}.herald`, value: heraldRate, unit: 'messages/s', conditions: heraldConditions },
      { name: `${NAME}.baseline`, value: baselineRate, unit: 'messages/s', conditions: baselineConditions },
      { name: `${NAME}.ratio`, value: heraldRate / baselineRate, unit: 'herald/baseline', conditions: { n, clients, dkim: options.dkim } },
      {
        name: `${NAME}.accept`, value: acceptRate, unit: 'requests/s',
        conditions: { n, clients, seconds: seconds(load.finishedAt - load.startedAt), while: 'the worker delivers at the same time', database: heraldConditions.database, logLevel: heraldConditions.logLevel },
      },
    ];
    report(`${NAME}: ${n} emails, HTTP accept → SMTP sink`, figures, [
      `herald ${heraldConditions.seconds} s (${heraldConditions.avgMessageBytes} B/message, ${heraldConnections} new SMTP connections); baseline before ${before.rate.toFixed(0)}/s, after ${after.rate.toFixed(0)}/s (${baselineConditions.avgMessageBytes} B/message)`,
      `herald message statuses: ${JSON.stringify(stats.statuses)}, outbox rows left: ${stats.outbox}`,
    ]);

    if (options.profile) await printProfile(NAME, sql, profileDir);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await emailE2e(process.argv.slice(2));
