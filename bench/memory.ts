import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { acceptBodies, SEND_PATHS, type AcceptBodies } from './lib/accept-requests.ts';
import { runLoad, type LoadFigures } from './lib/autocannon-load.ts';
import { startChild } from './lib/child.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Budget, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase } from './lib/databases.ts';
import type { FastifyReady } from './lib/fastify-child.ts';
import type { HeraldStats } from './lib/herald-child.ts';
import { startHerald } from './lib/herald-process.ts';
import { megabytes, readRss, sampleRss } from './lib/proc-stats.ts';

// Memory: herald's resident set size (RSS, from /proc/<pid>/status) idle — after it
// started, opened the bench account and settled — and its peak under the accept load
// (POST /v1/email, one recipient, at the highest --connections level, for --duration
// seconds, sampled every 100 ms until the worker has delivered what was accepted),
// then once more after that and a settle. Baseline: the bare Fastify process of the
// accept benchmark under the same load.

export const NAME = 'memory';
const DEFAULTS: BenchDefaults = { clients: 16, timeoutS: 180, durationS: 10 };
const TARGET_MB = { idle: 150, load: 400 } as const;
const SETTLE_MS = 3000;
const SAMPLE_EVERY_MS = 100;
const DRAIN_LIMIT_MS = 120_000;

interface MemoryRun {
  readonly idleBytes: number;
  /** What the idle RSS is made of, by process.memoryUsage() in the process itself. */
  readonly idleUsage: NodeJS.MemoryUsage;
  /** Highest RSS from the start of the load until its work was done (herald: its outbox delivered). */
  readonly loadPeakBytes: number;
  readonly samples: number;
  readonly load: LoadFigures;
}

const mb = (bytes: number): number => Number(megabytes(bytes).toFixed(1));
const usageMb = (usage: NodeJS.MemoryUsage): Record<string, number> => ({
  heapUsed: mb(usage.heapUsed), heapTotal: mb(usage.heapTotal), external: mb(usage.external), arrayBuffers: mb(usage.arrayBuffers),
});

interface Measurement {
  readonly budget: Budget;
  /** The measured child process. */
  readonly target: { readonly pid: number; call<T>(command: string, args?: unknown): Promise<T> };
  readonly what: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: AcceptBodies;
  readonly connections: number;
  readonly durationS: number;
  /** Resolves when the process is done with what it took in (herald: its outbox delivered). */
  readonly finish: () => Promise<void>;
}

/** RSS after settling, then its peak from the start of the load until `finish` resolves. */
async function measureProcess({ budget, target, what, url, headers, body, connections, durationS, finish }: Measurement): Promise<MemoryRun> {
  await sleep(SETTLE_MS);
  const idleBytes = readRss(target.pid).rssBytes;
  const idleUsage = await budget.within(target.call<NodeJS.MemoryUsage>('memoryUsage'), () => `asking ${what} for its memory usage`);
  const sampler = sampleRss(target.pid, SAMPLE_EVERY_MS);
  const load = await budget.within(runLoad({ url, headers, body, connections, durationS, signal: budget.signal }), () => `loading ${what}`)
    .then(async (figures) => {
      await finish();
      return figures;
    })
    .catch((error: unknown) => {
      sampler.stop();
      throw error;
    });
  const sampled = sampler.stop();
  return { idleBytes, idleUsage, loadPeakBytes: sampled.peakBytes, samples: sampled.samples, load };
}

export async function memory(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const kinds = databaseKinds(options.db);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  const connections = Math.max(...options.connections);
  const path = SEND_PATHS.email;
  const body = acceptBodies('email', '');

  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    const load = { channel: 'email', path, connections, durationS: options.durationS, settleS: SETTLE_MS / 1000, sampledEveryMs: SAMPLE_EVERY_MS, source: '/proc/<pid>/status VmRSS' };
    const figures: Figure[] = [];
    const notes: string[] = [];

    // ---- Baseline: the bare Fastify process under the same load.
    const baseline = await budget.within(startChild<FastifyReady>(new URL('./lib/fastify-child.ts', import.meta.url), { signal: budget.signal }), () => 'starting the baseline');
    onAbort(() => baseline.kill());
    defer(() => baseline.close());
    progress(`baseline: bare Fastify, settle ${SETTLE_MS / 1000} s, then ${connections} connections for ${options.durationS} s`);
    const base = await measureProcess({
      budget, target: baseline, what: 'the baseline', url: `http://127.0.0.1:${baseline.ready.port}${path}`, headers: {}, body, connections, durationS: options.durationS, finish: async () => {},
    });
    const baseHwm = readRss(baseline.pid).peakBytes;
    await budget.within(baseline.close(), () => 'closing the baseline');
    figures.push(
      { name: `${NAME}.baseline.idle`, value: megabytes(base.idleBytes), unit: 'MB RSS', conditions: { ...load, server: 'bare Fastify 5 route, no logger', usage: usageMb(base.idleUsage) } },
      { name: `${NAME}.baseline.load`, value: megabytes(base.loadPeakBytes), unit: 'MB RSS', conditions: { ...load, samples: base.samples, requestsPerS: Math.round(base.load.rps), lifetimePeakMB: mb(baseHwm) } },
    );

    // ---- herald, once per store.
    for (const kind of kinds) {
      const database = await budget.within(freshDatabase(kind), () => `creating a ${kind} store`);
      defer(() => database.drop());
      progress(`herald on ${database.description}: settle ${SETTLE_MS / 1000} s, then ${connections} connections for ${options.durationS} s; worker ${options.worker ? 'on' : 'off'}`);
      const herald = await startHerald({ database, budget, logLevel: options.logLevel, worker: options.worker, dkim: options.dkim });
      onAbort(() => herald.kill());
      defer(() => herald.close());
      // The peak counts until the worker has delivered what was taken in: composing and
      // recording the backlog is part of the load.
      let backlog = 0;
      const run = await measureProcess({
        budget, target: herald, what: `herald on ${kind}`, url: `http://127.0.0.1:${herald.ready.port}${path}`, headers: { authorization: `Bearer ${herald.ready.apiKey}` },
        body, connections, durationS: options.durationS,
        finish: async () => {
          backlog = (await budget.within(herald.call<HeraldStats>('stats', { waitMs: 0 }), () => 'reading herald\'s outbox')).outbox;
          if (options.worker) await budget.within(herald.call<HeraldStats>('stats', { waitMs: DRAIN_LIMIT_MS }), () => 'herald delivering its backlog');
        },
      });
      await sleep(SETTLE_MS);
      const afterBytes = readRss(herald.pid).rssBytes;
      const afterUsage = await budget.within(herald.call<NodeJS.MemoryUsage>('memoryUsage'), () => 'asking herald for its memory usage');
      const hwm = readRss(herald.pid).peakBytes;
      await budget.within(herald.close(), () => `closing herald on ${kind}`);

      const conditions = {
        ...load, database: database.description, worker: options.worker ? 'on (capture transports; delivers during the load)' : 'off', dkim: options.dkim,
        logLevel: `${options.logLevel} (stdout to /dev/null)`,
      };
      const idleMet = megabytes(run.idleBytes) < TARGET_MB.idle;
      const loadMet = megabytes(run.loadPeakBytes) < TARGET_MB.load;
      figures.push(
        { name: `${NAME}.${kind}.idle`, value: megabytes(run.idleBytes), unit: 'MB RSS', conditions: { ...conditions, target: `< ${TARGET_MB.idle} MB`, met: idleMet, ratioToBaseline: Number((run.idleBytes / base.idleBytes).toFixed(2)), usage: usageMb(run.idleUsage) } },
        {
          name: `${NAME}.${kind}.load`, value: megabytes(run.loadPeakBytes), unit: 'MB RSS',
          conditions: { ...conditions, target: `< ${TARGET_MB.load} MB`, met: loadMet, samples: run.samples, requestsPerS: Math.round(run.load.rps), timeouts: run.load.timeouts, outboxBacklogAtEnd: backlog, lifetimePeakMB: mb(hwm), ratioToBaseline: Number((run.loadPeakBytes / base.loadPeakBytes).toFixed(2)) },
        },
        { name: `${NAME}.${kind}.after`, value: megabytes(afterBytes), unit: 'MB RSS', conditions: { ...conditions, when: `the backlog delivered, then ${SETTLE_MS / 1000} s idle`, usage: usageMb(afterUsage) } },
      );
      notes.push(
        `herald/${kind}: idle ${mb(run.idleBytes)} MB (V8 heap ${mb(run.idleUsage.heapUsed)} used of ${mb(run.idleUsage.heapTotal)}; target < ${TARGET_MB.idle}: ${idleMet ? 'MET' : 'NOT MET'}), under load ${mb(run.loadPeakBytes)} MB at ${Math.round(run.load.rps)} req/s (target < ${TARGET_MB.load}: ${loadMet ? 'MET' : 'NOT MET'}), after ${mb(afterBytes)} MB, lifetime peak ${mb(hwm)} MB; outbox backlog at end of load ${backlog}`,
      );
    }
    notes.unshift(`baseline: idle ${mb(base.idleBytes)} MB (V8 heap ${mb(base.idleUsage.heapUsed)} used of ${mb(base.idleUsage.heapTotal)}), under load ${mb(base.loadPeakBytes)} MB at ${Math.round(base.load.rps)} req/s`);
    report(`${NAME}: resident memory, herald vs bare Fastify`, figures, notes);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await memory(process.argv.slice(2));
