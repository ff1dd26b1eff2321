import { EventEmitter, once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_DISPATCHER_OPTIONS } from '../src/queue/webhooks/dispatcher.ts';
import { newWebhookSecret } from '../src/domain/webhook-secret.ts';
import { startChild } from './lib/child.ts';
import { harness, parseBenchOptions, postgresToSqlite, progress, report, rerunCommand, seconds, whenCount, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase, type BenchDatabase } from './lib/databases.ts';
import { cpuSeconds } from './lib/proc-stats.ts';
import { printProfile, profileClockUs } from './lib/profile-summary.ts';
import type { SqlTiming } from './lib/sql-timing.ts';
import type { WebhookHeraldReady, WebhookHeraldStats } from './lib/webhook-herald-child.ts';
import type { RawPrepare } from './lib/webhook-raw-child.ts';

// Webhooks, end to end: N = 20,000 events, each from a recorded status change (an SMS
// delivery receipt committed through recordPeerStatus, `--clients` at a time, in the
// herald process) to its verified receipt at a local receiver (node:http here, checking
// every post with the `standardwebhooks` package's Webhook.verify). herald runs its
// webhook dispatcher on a SQLite file (then on PostgreSQL when TEST_POSTGRES_URL is
// set). Baseline, in the same run, before and after herald: the same signed POSTs
// straight from memory — same signer, same keep-alive pool, same number in flight — to
// the same receiver. Sender and baseline run in a child process; the receiver runs here.

export const NAME = 'webhooks';
const DEFAULTS: BenchDefaults = { n: 20_000, clients: 16, timeoutS: 300 };
/** The issue's target: herald's events/s at least half the raw signed POSTs'. */
const TARGET_RATIO = 0.5;
/** herald's dispatcher defaults, which the baseline copies: posts in flight, sockets per receiver. */
const IN_FLIGHT = DEFAULT_DISPATCHER_OPTIONS.concurrency;
const SOCKETS = DEFAULT_DISPATCHER_OPTIONS.maxSocketsPerOrigin;

interface Receiver {
  readonly url: string;
  readonly verified: () => number;
  readonly rejected: () => number;
  /** The secret posts must verify with from now on. */
  trust(secret: string): void;
  waitFor(target: number): Promise<number>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  let verifier: Webhook | undefined;
  let verified = 0;
  let rejected = 0;
  const arrivals = new EventEmitter();
  arrivals.setMaxListeners(0);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        verifier?.verify(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>);
        if (verifier === undefined) throw new Error('no secret yet');
        verified += 1;
        response.writeHead(204).end();
        arrivals.emit('verified');
      } catch {
        rejected += 1;
        response.writeHead(401).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    verified: () => verified,
    rejected: () => rejected,
    trust(secret) { verifier = new Webhook(secret); },
    waitFor: (target) => whenCount(() => verified, target, (check) => {
      arrivals.on('verified', check);
      return () => arrivals.off('verified', check);
    }),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

interface HeraldResult {
  readonly database: BenchDatabase;
  readonly rate: number;
  readonly recordRate: number;
  /** Events/s of the same N already recorded when the dispatcher starts (a backlog, as after an outage). */
  readonly backlogRate: number;
  readonly backlogSeconds: number;
  readonly seconds: number;
  readonly stats: WebhookHeraldStats;
  readonly cpuMsPerEvent: number;
  readonly sql: SqlTiming[];
  readonly profileDir: string;
  readonly window: readonly [number, number];
}

export async function webhooks(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const kinds = databaseKinds(options.db);
  const { n, clients } = options;
  const warmup = Math.min(2000, n);
  const rerun = rerunCommand(NAME, options, DEFAULTS);

  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    const receiver = await startReceiver();
    defer(() => receiver.close());
    const verified = (target: number, what: string): Promise<number> =>
      budget.within(receiver.waitFor(target), () => `${what} (${receiver.verified()} of ${target} posts verified, ${receiver.rejected()} rejected)`);

    // ---- Baseline: raw signed POSTs from memory, before and after herald.
    progress(`baseline: raw signed POSTs, ${IN_FLIGHT} in flight over ${SOCKETS} kept-alive sockets, ${n} events (+${warmup} warm-up), before and after herald`);
    const raw = await budget.within(startChild<Record<string, never>>(new URL('./lib/webhook-raw-child.ts', import.meta.url), { env: { BENCH_SOCKETS: String(SOCKETS) }, signal: budget.signal }), () => 'starting the baseline');
    onAbort(() => raw.kill());
    defer(() => raw.close());
    const rawSecret = newWebhookSecret();
    let posted = 0;
    const baselineRound = async (count: number, what: string): Promise<{ rate: number; ms: number; cpuMsPerEvent: number }> => {
      receiver.trust(rawSecret);
      await budget.within(raw.call('prepare', { url: receiver.url, secret: rawSecret, from: posted, count } satisfies RawPrepare), () => `building the posts of ${what}`);
      const target = receiver.verified() + count;
      posted += count;
      const cpuBefore = cpuSeconds(raw.pid);
      const started = performance.now();
      const done = raw.call<{ failed: number }>('send', { inFlight: IN_FLIGHT });
      done.catch(() => {}); // awaited below; an aborted run must not leave it unhandled
      const ended = await verified(target, what);
      const { failed } = await budget.within(done, () => `${what} finished`);
      if (failed > 0) throw new Error(`${what}: ${failed} posts were not answered 2xx`);
      return { rate: count / ((ended - started) / 1000), ms: ended - started, cpuMsPerEvent: ((cpuSeconds(raw.pid) - cpuBefore) * 1000) / count };
    };
    await baselineRound(warmup, 'the baseline warm-up');
    const before = await baselineRound(n, 'the baseline (before herald)');
    progress(`baseline before herald: ${before.rate.toFixed(0)} events/s`);

    // ---- herald: receipt → store (event + delivery) → dispatcher → signed POST → receiver, once per store.
    const results: HeraldResult[] = [];
    for (const kind of kinds) {
      const database = await budget.within(freshDatabase(kind), () => `creating a ${kind} store`);
      defer(() => database.drop());
      progress(`herald on ${database.description}: ${clients} receipts recorded at a time, ${n} events (+${warmup} warm-up)`);
      // Kept after the run, for a closer look (e.g. in Chrome DevTools).
      const profileDir = options.profile ? await mkdtemp(join(tmpdir(), `herald-bench-profile-${kind}-`)) : '';
      const herald = await budget.within(
        startChild<WebhookHeraldReady>(new URL('./lib/webhook-herald-child.ts', import.meta.url), {
          env: {
            HERALD_DATABASE_URL: database.url, HERALD_HOST: '127.0.0.1', HERALD_PORT: '0', HERALD_PUBLIC_URL: 'https://herald.example.com',
            HERALD_ADMIN_TOKEN: 'bench-admin-token-0123456789', HERALD_LOG_LEVEL: options.logLevel, HERALD_FETCH_ALLOW_PRIVATE: 'true',
            BENCH_SQL_TIMING: options.profile ? 'on' : 'off',
          },
          execArgv: options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
          signal: budget.signal,
        }),
        () => `starting herald on ${kind}`,
      );
      onAbort(() => herald.kill());
      defer(() => herald.close());
      receiver.trust(await budget.within(herald.call<string>('subscribe', { url: receiver.url }), () => 'setting the webhook URL'));
      await budget.within(herald.call('start'), () => 'starting the dispatcher');

      const round = async (count: number, what: string) => {
        await budget.within(herald.call('prepare', { count }), () => `storing the messages of ${what}`);
        const target = receiver.verified() + count;
        const cpuBefore = cpuSeconds(herald.pid);
        const from = profileClockUs();
        const started = performance.now();
        const recording = herald.call('record', { concurrency: clients }).then(() => performance.now());
        recording.catch(() => {}); // awaited below
        const ended = await verified(target, what);
        const to = profileClockUs();
        const recorded = await budget.within(recording, () => `${what}: recording the receipts`);
        return { started, ended, recorded, cpuMsPerEvent: ((cpuSeconds(herald.pid) - cpuBefore) * 1000) / count, window: [from, to] as const };
      };
      await round(warmup, `warming up herald on ${kind}`);
      if (options.profile) await herald.call('recordSqlTiming', { on: true, reset: true });
      const measured = await round(n, `herald on ${kind}`);
      const sql = options.profile ? await budget.within(herald.call<SqlTiming[]>('sqlTimings'), () => 'reading the SQL timings') : [];
      const rate = n / ((measured.ended - measured.started) / 1000);
      progress(`herald on ${kind}: ${rate.toFixed(0)} events/s, receipts recorded while the dispatcher posts`);

      // The dispatcher alone: N events recorded while it is stopped, then posted from the backlog.
      await budget.within(herald.call('pause'), () => 'stopping the dispatcher');
      await budget.within(herald.call('prepare', { count: n }), () => 'storing the messages of the backlog');
      await budget.within(herald.call('record', { concurrency: clients }), () => 'recording the backlog');
      const backlogTarget = receiver.verified() + n;
      const backlogStarted = performance.now();
      await budget.within(herald.call('start'), () => 'resuming the dispatcher');
      const backlogEnded = await verified(backlogTarget, `herald on ${kind} posting its backlog`);
      const backlogRate = n / ((backlogEnded - backlogStarted) / 1000);
      progress(`herald on ${kind}: ${backlogRate.toFixed(0)} events/s from a backlog`);
      const stats = await budget.within(herald.call<WebhookHeraldStats>('stats', { waitMs: 10_000 }), () => `herald on ${kind} recorded the attempts`);
      await budget.within(herald.close(), () => `closing herald on ${kind}`);
      results.push({
        database, rate, backlogRate, backlogSeconds: seconds(backlogEnded - backlogStarted), recordRate: n / ((measured.recorded - measured.started) / 1000), seconds: seconds(measured.ended - measured.started),
        stats, cpuMsPerEvent: measured.cpuMsPerEvent, sql, profileDir, window: measured.window,
      });
    }

    const after = await baselineRound(n, 'the baseline (after herald)');
    progress(`baseline after herald: ${after.rate.toFixed(0)} events/s`);
    await budget.within(raw.close(), () => 'closing the baseline');
    const baselineRate = (before.rate + after.rate) / 2;

    const shared = { n, warmup, receiver: 'node:http on loopback in the load generator\'s process, Webhook.verify on every post', event: 'sms.delivered (~330 B JSON)' };
    const baselineConditions = {
      ...shared, sender: `node:http, keep-alive Agent of ${SOCKETS} sockets, ${IN_FLIGHT} posts in flight, each signed when sent (standardwebhooks)`,
      aggregate: 'mean of a round before and a round after herald', before: Number(before.rate.toFixed(1)), after: Number(after.rate.toFixed(1)),
      seconds: [seconds(before.ms), seconds(after.ms)], cpuMsPerEvent: Number(((before.cpuMsPerEvent + after.cpuMsPerEvent) / 2).toFixed(3)),
    };
    const figures: Figure[] = [{ name: `${NAME}.baseline`, value: baselineRate, unit: 'events/s', conditions: baselineConditions }];
    const notes = [`baseline before ${before.rate.toFixed(0)}/s (${seconds(before.ms)} s), after ${after.rate.toFixed(0)}/s (${seconds(after.ms)} s), CPU ${baselineConditions.cpuMsPerEvent} ms/event`];
    for (const r of results) {
      const kind = r.database.kind;
      const ratio = r.rate / baselineRate;
      figures.push(
        {
          name: `${NAME}.${kind}.herald`, value: r.rate, unit: 'events/s',
          conditions: {
            ...shared, clients, database: r.database.description, dispatcher: `${IN_FLIGHT} in flight, ${SOCKETS} sockets per receiver`,
            logLevel: `${options.logLevel} (stdout to /dev/null)`, seconds: r.seconds, deliveries: r.stats.deliveries, attempts: r.stats.attempts,
            cpuMsPerEvent: Number(r.cpuMsPerEvent.toFixed(3)),
          },
        },
        { name: `${NAME}.${kind}.ratio`, value: ratio, unit: 'herald/baseline', conditions: { n, database: kind, target: `≥ ${TARGET_RATIO}`, met: ratio >= TARGET_RATIO } },
        {
          name: `${NAME}.${kind}.backlog`, value: r.backlogRate, unit: 'events/s',
          conditions: { n, database: r.database.description, seconds: r.backlogSeconds, what: 'the dispatcher alone: N events already recorded when it starts (a receiver back after an outage)' },
        },
        { name: `${NAME}.${kind}.backlog-ratio`, value: r.backlogRate / baselineRate, unit: 'herald/baseline', conditions: { n, database: kind, target: `≥ ${TARGET_RATIO}`, met: r.backlogRate / baselineRate >= TARGET_RATIO } },
        { name: `${NAME}.${kind}.record`, value: r.recordRate, unit: 'receipts/s', conditions: { n, clients, while: 'the dispatcher posts at the same time', database: r.database.description } },
      );
      notes.push(
        `herald/${kind}: ${r.rate.toFixed(0)} events/s in ${r.seconds} s = ${(100 * ratio).toFixed(1)} % of the baseline (receipts committed at ${r.recordRate.toFixed(0)}/s, CPU ${r.cpuMsPerEvent.toFixed(2)} ms/event); deliveries ${JSON.stringify(r.stats.deliveries)}, attempts ${r.stats.attempts}`,
        `herald/${kind} from a backlog (the dispatcher alone): ${r.backlogRate.toFixed(0)} events/s in ${r.backlogSeconds} s = ${(100 * r.backlogRate / baselineRate).toFixed(1)} % of the baseline`,
        `target ${kind} (≥ ${100 * TARGET_RATIO} % of raw signed POSTs): end to end ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}, from a backlog ${r.backlogRate / baselineRate >= TARGET_RATIO ? 'MET' : 'NOT MET'}`,
      );
    }
    if (receiver.rejected() > 0) notes.push(`${receiver.rejected()} posts failed verification`);
    figures.push(
      ...postgresToSqlite(NAME, results.map((r) => ({ kind: r.database.kind, rate: r.rate })), { n, what: 'end to end' }),
      ...postgresToSqlite(`${NAME}.backlog`, results.map((r) => ({ kind: r.database.kind, rate: r.backlogRate })), { n, what: 'from a backlog' }),
    );
    report(`${NAME}: ${n} events, recorded status change → verified receipt`, figures, notes);

    for (const r of results) {
      if (!options.profile) continue;
      process.stdout.write(`\n--profile, herald on ${r.database.kind}: from the first measured receipt to the last verified post${r.database.kind === 'sqlite' ? '' : '; each `pg:` line is one round trip per call, timed from the call to the answer'}\n`);
      await printProfile(NAME, r.sql, r.profileDir, { windows: [r.window], per: { count: n, unit: 'event' } });
    }
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await webhooks(process.argv.slice(2));
