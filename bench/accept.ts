import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceptBodies, SEND_PATHS } from './lib/accept-requests.ts';
import { runLoad, type LoadFigures } from './lib/autocannon-load.ts';
import { startChild, type Child } from './lib/child.ts';
import { harness, parseBenchOptions, postgresToSqlite, progress, report, rerunCommand, type BenchChannel, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase, type BenchDatabase } from './lib/databases.ts';
import type { FastifyReady } from './lib/fastify-child.ts';
import type { HeraldStats } from './lib/herald-child.ts';
import { startHerald, type Herald } from './lib/herald-process.ts';
import { cpuSeconds } from './lib/proc-stats.ts';
import { printProfile, profileClockUs } from './lib/profile-summary.ts';
import type { SqlTiming } from './lib/sql-timing.ts';

// Accept: how many sends herald takes per second, and how fast it answers, when
// `connections` keep-alive clients post as fast as they are answered (autocannon, in
// this process). One recipient per request, the capture transport, an account whose
// rate limit is out of the way; durable — herald answers 200 only after the commit,
// on a SQLite file (WAL, synchronous=FULL) or a PostgreSQL database. Baseline, in the
// same run and with the same load: a bare Fastify 5 route parsing the same JSON body.
// Email at every --connections level; SMS and WhatsApp at the target's level.

export const NAME = 'accept';
const DEFAULTS: BenchDefaults = { clients: 16, timeoutS: 300 };
/** The issue's target: ≥ 25 % of the baseline's requests/s, p99 under 20 ms, at 50 connections. */
const TARGET = { ratio: 0.25, p99Ms: 20, connections: 50 } as const;
/** A send is answered before its delivery; how long the outbox may take to empty after a level. */
const DRAIN_LIMIT_MS = 120_000;

interface Measured extends LoadFigures {
  /** CPU of the measured process during the measured run, milliseconds per answered request. */
  readonly cpuMsPerRequest: number;
}

interface HeraldRun {
  readonly database: BenchDatabase;
  readonly herald: Herald;
  /** 2xx answers over every load posted to it, warm-ups included. */
  accepted: number;
  /** --profile: where its CPU profile goes, and the measured loads within it. */
  readonly profileDir: string;
  readonly windows: [number, number][];
  measuredRequests: number;
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));
const authorization = (apiKey: string | undefined): Record<string, string> => (apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` });

export async function accept(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const kinds = databaseKinds(options.db);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  const sideLevel = options.connections.includes(TARGET.connections) ? TARGET.connections : (options.connections[0] ?? TARGET.connections);

  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    // ---- The baseline: bare Fastify, in a process of its own for the whole run.
    const baseline: Child<FastifyReady> = await budget.within(startChild<FastifyReady>(new URL('./lib/fastify-child.ts', import.meta.url), { signal: budget.signal }), () => 'starting the baseline');
    onAbort(() => baseline.kill());
    defer(() => baseline.close());

    // ---- herald, once per store, each on a fresh one.
    const runs: HeraldRun[] = [];
    for (const kind of kinds) {
      const database = await budget.within(freshDatabase(kind), () => `creating a ${kind} store`);
      defer(() => database.drop());
      progress(`herald on ${database.description}; worker ${options.worker ? 'on (capture transports)' : 'off'}`);
      // Kept after the run, for a closer look (e.g. in Chrome DevTools).
      const profileDir = options.profile ? await mkdtemp(join(tmpdir(), `herald-bench-profile-${kind}-`)) : '';
      const herald = await startHerald({ database, budget, logLevel: options.logLevel, worker: options.worker, dkim: options.dkim, profileDir });
      onAbort(() => herald.kill());
      defer(() => herald.close());
      if (options.profile) await herald.call('recordSqlTiming', { on: false, reset: true }); // start-up and migrations are not the point
      runs.push({ database, herald, accepted: 0, profileDir, windows: [], measuredRequests: 0 });
    }
    const templateId = runs[0]?.herald.ready.whatsappTemplateId ?? '00000000-0000-7000-8000-000000000000';

    const measure = async (target: { port: number; pid: number; apiKey?: string; templateId: string; run?: HeraldRun }, channel: BenchChannel, connections: number, what: string): Promise<{ warmup: number; measured: Measured }> => {
      const level = {
        url: `http://127.0.0.1:${target.port}${SEND_PATHS[channel]}`,
        headers: authorization(target.apiKey),
        body: acceptBodies(channel, target.templateId),
        connections,
        signal: budget.signal,
      };
      let warmup = 0;
      if (options.warmupS > 0) warmup = (await budget.within(runLoad({ ...level, durationS: options.warmupS }), () => `warming up ${what}`)).requests;
      const profiled = options.profile ? target.run : undefined;
      if (profiled !== undefined) await profiled.herald.call('recordSqlTiming', { on: true });
      const cpuBefore = cpuSeconds(target.pid);
      const from = profileClockUs();
      const figures = await budget.within(runLoad({ ...level, durationS: options.durationS }), () => `loading ${what}`);
      const to = profileClockUs();
      const cpuMs = (cpuSeconds(target.pid) - cpuBefore) * 1000;
      if (profiled !== undefined) {
        await profiled.herald.call('recordSqlTiming', { on: false });
        profiled.windows.push([from, to]);
        profiled.measuredRequests += figures.requests;
      }
      return { warmup, measured: { ...figures, cpuMsPerRequest: cpuMs / figures.requests } };
    };
    const onBaseline = (channel: BenchChannel, connections: number, what: string) =>
      measure({ port: baseline.ready.port, pid: baseline.pid, templateId }, channel, connections, what).then((r) => r.measured);

    const figures: Figure[] = [];
    const notes: string[] = [];
    const verdicts: string[] = [];
    const plan: [BenchChannel, number][] = options.channels.flatMap((channel) =>
      channel === 'email' ? options.connections.map((c): [BenchChannel, number] => [channel, c]) : [[channel, sideLevel] as [BenchChannel, number]]);

    for (const [channel, connections] of plan) {
      const tag = `${channel} at ${connections} connections`;
      // The baseline before and after herald: a burst of load from elsewhere on the
      // machine during herald's runs then tends to show in one of its rounds too.
      const before = await onBaseline(channel, connections, `the baseline (${tag}, before herald)`);
      progress(`baseline ${tag}: ${before.rps.toFixed(0)} requests/s, p99 ${before.p99Ms} ms`);
      const heraldResults: { run: HeraldRun; measured: Measured; backlog: number; drainS: number }[] = [];
      for (const run of runs) {
        const { herald } = run;
        const { warmup, measured } = await measure(
          { port: herald.ready.port, pid: herald.pid, apiKey: herald.ready.apiKey, templateId: herald.ready.whatsappTemplateId, run },
          channel, connections, `herald on ${run.database.kind} (${tag})`,
        );
        run.accepted += warmup + measured.requests;
        // What the worker still had to deliver when the load stopped, and how long it took:
        // the next measurement starts on an idle herald.
        const atEnd = await budget.within(herald.call<HeraldStats>('stats', { waitMs: 0 }), () => 'reading herald\'s outbox');
        const drainStarted = performance.now();
        const drained = options.worker ? await budget.within(herald.call<HeraldStats>('stats', { waitMs: DRAIN_LIMIT_MS }), () => 'herald delivering its backlog') : atEnd;
        const drainS = (performance.now() - drainStarted) / 1000;
        if (options.worker && drained.outbox > 0) notes.push(`${channel}/${run.database.kind} at ${connections}: ${drained.outbox} messages still undelivered ${DRAIN_LIMIT_MS / 1000} s after the load: the next measurements ran beside their delivery`);
        progress(`herald on ${run.database.kind} ${tag}: ${measured.rps.toFixed(0)} requests/s, p99 ${measured.p99Ms} ms; backlog ${atEnd.outbox}${options.worker ? `, delivered in ${drainS.toFixed(1)} s` : ''}`);
        heraldResults.push({ run, measured, backlog: atEnd.outbox, drainS });
      }
      const after = await onBaseline(channel, connections, `the baseline (${tag}, after herald)`);
      progress(`baseline ${tag} after herald: ${after.rps.toFixed(0)} requests/s`);

      const baselineRps = (before.rps + after.rps) / 2;
      const prefix = `${NAME}.${channel}`;
      const level = `c${connections}`;
      const common = { channel, path: SEND_PATHS[channel], connections, durationS: options.durationS, warmupS: options.warmupS, recipientsPerRequest: 1, recipients: 'a different one per request', loadGenerator: 'autocannon (programmatic, in the parent process), keep-alive, no pipelining', bodyBytes: Buffer.byteLength(acceptBodies(channel, templateId)(0)) };
      figures.push(
        {
          name: `${prefix}.baseline.${level}.rps`, value: baselineRps, unit: 'requests/s',
          conditions: { ...common, server: 'bare Fastify 5 route, default JSON parser, answers 200 {result,fields}, no logger', aggregate: 'mean of a round before and a round after herald', before: round(before.rps), after: round(after.rps), cpuMsPerRequest: round((before.cpuMsPerRequest + after.cpuMsPerRequest) / 2, 3) },
        },
        { name: `${prefix}.baseline.${level}.p50`, value: (before.p50Ms + after.p50Ms) / 2, unit: 'ms', conditions: { ...common, before: before.p50Ms, after: after.p50Ms } },
        { name: `${prefix}.baseline.${level}.p99`, value: (before.p99Ms + after.p99Ms) / 2, unit: 'ms', conditions: { ...common, before: before.p99Ms, after: after.p99Ms } },
      );
      for (const { run, measured, backlog, drainS } of heraldResults) {
        const kind = run.database.kind;
        const ratio = measured.rps / baselineRps;
        const atTarget = connections === TARGET.connections;
        // A request left unanswered past the load generator's timeout is past any p99 target.
        const p99Met = measured.p99Ms < TARGET.p99Ms && measured.timeouts === 0;
        const met = ratio >= TARGET.ratio && p99Met;
        const heraldConditions = {
          ...common, database: run.database.description, durable: 'the 200 is sent after the commit',
          worker: options.worker ? 'on: the in-process outbox worker delivers to the capture transport during the load' : 'off (BENCH_WORKER=off): accept path alone, nothing delivered',
          dkim: channel === 'email' ? options.dkim : undefined, logLevel: `${options.logLevel} (stdout to /dev/null)`,
          rateLimitPerSecond: 1_000_000, requests: measured.requests, seconds: round(measured.seconds, 2), maxMs: measured.maxMs,
          ...(measured.timeouts > 0 ? { timeouts: measured.timeouts, timeoutNote: `${measured.timeouts} requests unanswered after ${measured.timeoutS} s, not in p50/p99` } : {}),
          cpuMsPerRequest: round(measured.cpuMsPerRequest, 3), outboxBacklogAtEnd: backlog, ...(options.worker ? { backlogDeliveredInS: round(drainS, 2) } : {}),
        };
        figures.push(
          { name: `${prefix}.${kind}.${level}.rps`, value: measured.rps, unit: 'requests/s', conditions: heraldConditions },
          { name: `${prefix}.${kind}.${level}.p50`, value: measured.p50Ms, unit: 'ms', conditions: { channel, connections, database: kind } },
          { name: `${prefix}.${kind}.${level}.p99`, value: measured.p99Ms, unit: 'ms', conditions: { channel, connections, database: kind, timeouts: measured.timeouts, ...(atTarget ? { target: `< ${TARGET.p99Ms} ms`, met: p99Met } : {}) } },
          {
            name: `${prefix}.${kind}.${level}.ratio`, value: ratio, unit: 'herald/baseline rps',
            conditions: { channel, connections, database: kind, baselineRps: round(baselineRps), ...(atTarget ? { target: `≥ ${TARGET.ratio} with p99 < ${TARGET.p99Ms} ms`, met } : {}) },
          },
        );
        notes.push(`${channel}/${kind} at ${connections}: ${measured.rps.toFixed(0)} req/s = ${(100 * ratio).toFixed(1)} % of bare Fastify (${baselineRps.toFixed(0)}), p50 ${measured.p50Ms} ms, p99 ${measured.p99Ms} ms${measured.timeouts > 0 ? ` (+${measured.timeouts} unanswered after ${measured.timeoutS} s)` : ''}; herald CPU ${measured.cpuMsPerRequest.toFixed(2)} ms/request${options.worker ? ' incl. the deliveries made meanwhile' : ''} (baseline ${((before.cpuMsPerRequest + after.cpuMsPerRequest) / 2).toFixed(3)}); outbox backlog at end ${backlog}${options.worker ? `, delivered in ${drainS.toFixed(1)} s` : ''}`);
        if (atTarget) {
          verdicts.push(`target ${channel}/${kind} (≥ ${100 * TARGET.ratio} % of bare Fastify rps and p99 < ${TARGET.p99Ms} ms at ${TARGET.connections} connections): ${met ? 'MET' : 'NOT MET'} — ${(100 * ratio).toFixed(1)} %, p99 ${measured.p99Ms} ms`);
        }
      }
      if (connections === TARGET.connections) {
        figures.push(...postgresToSqlite(`${prefix}.c${connections}`, heraldResults.map(({ run, measured }) => ({ kind: run.database.kind, rate: measured.rps })), { channel, connections, worker: options.worker }));
      }
    }

    // Every 200 must be a committed message: the store holds at least as many as were
    // answered (more only by requests still in flight when a load stopped).
    for (const run of runs) {
      const stats = await budget.within(run.herald.call<HeraldStats>('stats', { waitMs: 0 }), () => 'counting herald\'s messages');
      const stored = Object.values(stats.statuses).reduce((sum, n) => sum + n, 0);
      notes.push(`${run.database.kind}: ${run.accepted} answered 200, ${stored} messages in the store ${stored >= run.accepted ? '(none lost)' : '— MISSING MESSAGES'}; statuses ${JSON.stringify(stats.statuses)}`);
      if (stored < run.accepted) throw new Error(`herald on ${run.database.kind} answered ${run.accepted} sends with 200 but holds ${stored} messages`);
    }
    const sql = new Map<HeraldRun, SqlTiming[]>();
    for (const run of runs) {
      if (options.profile) sql.set(run, await budget.within(run.herald.call<SqlTiming[]>('sqlTimings'), () => 'reading the SQL timings'));
      await budget.within(run.herald.close(), () => `closing herald on ${run.database.kind}`);
    }

    report(`${NAME}: send requests answered per second, herald vs bare Fastify`, figures, [...notes, ...verdicts]);
    for (const run of runs) {
      if (!options.profile) continue;
      process.stdout.write(`\n--profile, herald on ${run.database.kind}: the measured loads only (warm-ups, baselines and start-up left out)${run.database.kind === 'sqlite' ? '' : '; SQL runs in the PostgreSQL server, not timed here'}\n`);
      await printProfile(NAME, sql.get(run) ?? [], run.profileDir, { windows: run.windows, per: { count: run.measuredRequests, unit: 'request' } });
    }
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await accept(process.argv.slice(2));
