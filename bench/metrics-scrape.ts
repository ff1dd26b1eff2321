import { createAccount } from '../src/app/create-account.ts';
import { sendSms } from '../src/app/send-sms.ts';
import { findAccount } from '../src/store/accounts.ts';
import { loadConfig } from '../src/config.ts';
import { createService, type Service } from '../src/service.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase, type DatabaseKind } from './lib/databases.ts';

// What one Prometheus scrape costs as the outbox grows: the queue gauges read the
// outbox (joined to its messages) and the pending webhook deliveries at every scrape
// (store/queue-depth.ts). SMS messages are accepted through the send use case with the
// worker off, so they stay queued; at 0, a tenth of N and N (--n, default 100,000)
// queued messages the median of SCRAPES scrapes is measured, on a SQLite file and on
// PostgreSQL when TEST_POSTGRES_URL is set.

export const NAME = 'metrics-scrape';
const DEFAULTS: BenchDefaults = { n: 100_000, clients: 1, timeoutS: 600 };
const SCRAPES = 9;
const NUMBERS_PER_SEND = 500;

async function medianScrapeMs(service: Service): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    const started = performance.now();
    await service.metrics.scrape();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Number((times[Math.floor(SCRAPES / 2)] ?? 0).toFixed(2));
}

async function queueUpTo(service: Service, accountId: string, queued: number, target: number): Promise<number> {
  let total = queued;
  while (total < target) {
    const count = Math.min(NUMBERS_PER_SEND, target - total);
    const numbers = Array.from({ length: count }, (_, i) => `+52155${String(10_000_000 + total + i).padStart(8, '0')}`);
    const account = await findAccount(service.deps.db, accountId);
    if (account === undefined) throw new Error('the bench account is gone');
    const sent = await sendSms(service.deps, account, { message: 'Your code is 1234', mobile_numbers: numbers });
    if (!sent.ok) throw new Error(`the send was refused: ${sent.rejection.code}`);
    total += count;
  }
  return total;
}

async function measure(kind: DatabaseKind, n: number, defer: (f: () => Promise<void>) => void): Promise<Figure[]> {
  const database = await freshDatabase(kind);
  defer(() => database.drop());
  const service = await createService(loadConfig({ HERALD_DATABASE_URL: database.url }), { logger: false, worker: false });
  defer(() => service.close());
  const { account } = await createAccount(service.deps, { name: 'bench', messagesLeft: n, rateLimitPerSecond: 100_000 });
  const figures: Figure[] = [];
  let queued = 0;
  for (const depth of [...new Set([0, Math.floor(n / 10), n])]) {
    progress(`${kind}: queueing ${depth} SMS messages`);
    queued = await queueUpTo(service, account.id, queued, depth);
    const ms = await medianScrapeMs(service);
    figures.push({ name: `${kind}: one scrape with ${depth} messages queued`, value: ms, unit: 'ms', conditions: { store: database.description, queued: depth, scrapes: SCRAPES, statistic: 'median' } });
  }
  return figures;
}

export async function metricsScrape(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  return harness(NAME, options.timeoutS, rerun, async (h) => {
    const figures: Figure[] = [];
    for (const kind of databaseKinds(options.db)) {
      figures.push(...await h.budget.within(measure(kind, options.n, (f) => h.defer(f)), () => `measuring ${kind}`));
    }
    report('metrics-scrape: the cost of one /metrics scrape as the outbox grows', figures, [
      'queue gauges read the store at every scrape (store/queue-depth.ts); the rest are counters in memory',
    ]);
  });
}
