import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase } from './lib/databases.ts';
import { emailRequest } from './lib/email-content.ts';
import { startHerald, type Herald } from './lib/herald-process.ts';
import { postMany } from './lib/http-load.ts';
import { cpuSeconds } from './lib/proc-stats.ts';
import type { Budget } from './lib/common.ts';

// Batch sends (issue 25): N emails (--n, default 5,000) accepted through POST
// /v1/email/batch, 500 to a request (10 requests at the default), against the same
// emails as N single POST /v1/email, in the same run on the same herald, with the
// worker off (the accept path alone: parse, check, store, commit). Rounds alternate
// single, batch, batch, single so the store's growth weighs on both alike; each figure
// is over its two rounds. CPU is the herald process's (user + system) per email.

export const NAME = 'batch';
const DEFAULTS: BenchDefaults = { n: 5000, clients: 16, timeoutS: 600 };
const PER_BATCH = 500;
const WARMUP = 500;

interface Round {
  readonly emails: number;
  readonly ms: number;
  readonly cpuMs: number;
}

type Way = 'single' | 'batch';

async function round(herald: Herald, budget: Budget, way: Way, first: number, n: number, clients: number): Promise<Round> {
  const base = `http://127.0.0.1:${herald.ready.port}`;
  const requests = way === 'single' ? n : Math.ceil(n / PER_BATCH);
  const cpuBefore = cpuSeconds(herald.pid);
  const load = await budget.within(postMany({
    url: way === 'single' ? `${base}/v1/email` : `${base}/v1/email/batch`,
    apiKey: herald.ready.apiKey, count: requests, clients: Math.min(clients, requests), signal: budget.signal,
    body: way === 'single'
      ? (i) => emailRequest(first + i)
      : (i) => Array.from({ length: Math.min(PER_BATCH, n - i * PER_BATCH) }, (_, k) => emailRequest(first + i * PER_BATCH + k)),
  }), () => `${way} sends of ${n} emails`);
  return { emails: n, ms: load.finishedAt - load.startedAt, cpuMs: (cpuSeconds(herald.pid) - cpuBefore) * 1000 };
}

export async function batch(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  const { n, clients } = options;
  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    const figures: Figure[] = [];
    for (const kind of databaseKinds(options.db)) {
      const database = await budget.within(freshDatabase(kind), () => `creating a ${kind} store`);
      defer(() => database.drop());
      const herald = await startHerald({ database, budget, logLevel: options.logLevel, worker: false, dkim: options.dkim, messagesLeft: 4 * n + 2 * WARMUP });
      onAbort(() => herald.kill());
      defer(() => herald.close());
      progress(`herald on ${database.description}: warm-up (${WARMUP} single, ${WARMUP} in one batch)`);
      let next = 0;
      const measured: Record<Way, Round[]> = { single: [], batch: [] };
      const run = async (way: Way, count: number, keep: boolean): Promise<void> => {
        const r = await round(herald, budget, way, next, count, clients);
        next += count;
        if (keep) measured[way].push(r);
      };
      await run('single', WARMUP, false);
      await run('batch', WARMUP, false);
      for (const way of ['single', 'batch', 'batch', 'single'] as const) {
        progress(`herald on ${kind}: ${n} emails, ${way === 'single' ? `${n} requests` : `${Math.ceil(n / PER_BATCH)} requests of ${PER_BATCH}`}`);
        await run(way, n, true);
      }
      await budget.within(herald.close(), () => `closing herald on ${kind}`);
      const sum = (way: Way, pick: (r: Round) => number): number => measured[way].reduce((s, r) => s + pick(r), 0);
      const rate = (way: Way): number => sum(way, (r) => r.emails) / (sum(way, (r) => r.ms) / 1000);
      const cpu = (way: Way): number => sum(way, (r) => r.cpuMs) / sum(way, (r) => r.emails);
      const conditions = { store: kind, emails: n, rounds: 2, clients, per_batch: PER_BATCH, worker: 'off' };
      figures.push(
        { name: `batch.${kind}.batch`, value: Number(rate('batch').toFixed(0)), unit: 'emails/s', conditions },
        { name: `batch.${kind}.single`, value: Number(rate('single').toFixed(0)), unit: 'emails/s', conditions },
        { name: `batch.${kind}.batch-vs-single`, value: Number((rate('batch') / rate('single')).toFixed(2)), unit: '×', conditions },
        { name: `batch.${kind}.batch cpu`, value: Number(cpu('batch').toFixed(3)), unit: 'ms CPU/email', conditions },
        { name: `batch.${kind}.single cpu`, value: Number(cpu('single').toFixed(3)), unit: 'ms CPU/email', conditions },
      );
    }
    report(`Batch sends: POST /v1/email/batch (${PER_BATCH} a request) against single POST /v1/email, accept path alone`, figures, [
      'each figure is over two rounds of N emails, in the order single, batch, batch, single, after a warm-up of each',
      'CPU is the herald process\'s user + system time per email accepted (the worker is off)',
    ]);
  });
}
