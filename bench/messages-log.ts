import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { createAccount } from '../src/app/create-account.ts';
import { loadConfig } from '../src/config.ts';
import { createService } from '../src/service.ts';
import { startChild, type Child } from './lib/child.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase } from './lib/databases.ts';
import type { FastifyReady } from './lib/fastify-child.ts';
import { DAY_MS, fillMessages, recipientOf } from './lib/fill-messages.ts';

// The web application's messages log at scale: N = 1,000,000 messages in one account
// (email 70 %, SMS 25 %, WhatsApp 5 %; spread over 30 days; 50,000 recipients; mostly
// delivered, 3 % bounced, 2 % failed), written straight into the store, then
// GET /v1/messages answered over a real socket: the first page, and filtered pages
// (status, recipient, channel, a one-day window, and combinations), each ROUNDS times by
// `--clients` concurrent clients (default 1), p50/p95/max. The target: p95 under
// 300 ms for the first page and a filtered page. The baseline, in the same run and with
// the same client: a bare Fastify route answering a page of 50 messages from memory.

export const NAME = 'messages-log';
const DEFAULTS: BenchDefaults = { n: 1_000_000, clients: 1, timeoutS: 1800 };
const ROUNDS = 200;
const TARGET_P95_MS = 300;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

interface Latencies { readonly p50: number; readonly p95: number; readonly max: number; readonly rows: number }

/** ROUNDS answers of `url` by `clients` concurrent clients, after one unmeasured answer. */
async function measure(url: string, headers: Record<string, string>, clients: number): Promise<Latencies> {
  const once = async (): Promise<{ ms: number; rows: number }> => {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const body = (await res.json()) as { data?: unknown[] };
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - t0, rows: body.data?.length ?? 0 };
  };
  const { rows } = await once();
  const times: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < ROUNDS) {
      next += 1;
      times.push((await once()).ms);
    }
  }));
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1) ?? Number.NaN, rows };
}

export async function messagesLog(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  return harness(NAME, options.timeoutS, rerun, async (h) => {
    const figures: Figure[] = [];
    const notes: string[] = [];
    const baseline: Child<FastifyReady> = await h.budget.within(startChild<FastifyReady>(new URL('./lib/fastify-child.ts', import.meta.url), { signal: h.budget.signal }), () => 'starting the baseline');
    h.onAbort(() => baseline.kill());
    h.defer(() => baseline.close());
    const baselineUrl = `http://127.0.0.1:${baseline.ready.port}/v1/messages`;
    const before = await measure(baselineUrl, {}, options.clients);

    for (const kind of databaseKinds(options.db)) {
      const database = await freshDatabase(kind);
      h.defer(() => database.drop());
      const config = loadConfig({ HERALD_DATABASE_URL: database.url, HERALD_LOG_LEVEL: options.logLevel });
      const service = await createService(config, { logger: false, worker: false, imports: false });
      h.defer(() => service.close());
      await service.http.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(service.http.server.address() as AddressInfo).port}`;
      const { account, apiKey } = await createAccount(service.deps, { name: 'bench', messagesLeft: 0, rateLimitPerSecond: 100_000 });
      const other = await createAccount(service.deps, { name: 'neighbour', messagesLeft: 0 });
      const start = Date.now() - 30 * DAY_MS;
      progress(`${kind}: writing ${options.n} messages of one account (and ${options.n / 10} of another)`);
      const t0 = performance.now();
      await h.budget.within(fillMessages(service.store, account.id, options.n, start), () => `writing the ${kind} messages`);
      await h.budget.within(fillMessages(service.store, other.account.id, Math.floor(options.n / 10), start), () => `writing the ${kind} neighbour's messages`);
      progress(`${kind}: written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      // Statistics as autovacuum would have them by now on a store that grew to this size.
      await sql`analyze`.execute(service.store.db);

      const day = new Date(start + 15 * DAY_MS).toISOString().slice(0, 10);
      const pages: [string, string][] = [
        ['first page', 'limit=50'],
        ['status=failed', 'status=failed&limit=50'],
        // user0@example0.org: 1 message in 50,000, spread over the 30 days.
        ['recipient (one person)', `recipient=${encodeURIComponent(recipientOf(0, 'email'))}&limit=50`],
        ['channel=whatsapp', 'channel=whatsapp&limit=50'],
        ['one day (since, until)', `since=${day}T00:00:00Z&until=${day}T23:59:59Z&limit=50`],
        ['email, bounced, since 10 days', `channel=email&status=bounced&since=${new Date(start + 20 * DAY_MS).toISOString()}&limit=50`],
        ['status=dropped (none)', 'status=dropped&limit=50'],
        // Issue 24's searches: a recipient prefix (an index range), the count of the first page,
        // and the searches that look each candidate's send up (no send here has a subject: the worst case).
        ['recipient prefix user1', 'recipient_prefix=user1&limit=50'],
        ['first page with include_total', 'include_total=true&limit=50'],
        ['subject contains (none match)', 'subject=invoice&limit=50'],
        ['metadata key/value (none match)', 'metadata_key=order&metadata_value=1042&limit=50'],
      ];
      const headers = { authorization: `Bearer ${apiKey.apiKey}` };
      for (const [label, query] of pages) {
        const got = await h.budget.within(measure(`${base}/v1/messages?${query}`, headers, options.clients), () => `measuring ${label} on ${kind}`);
        const conditions = { store: database.description, messages: options.n, neighbourMessages: options.n / 10, query, rows: got.rows, rounds: ROUNDS, clients: options.clients };
        figures.push({ name: `${kind}: ${label}, p50`, value: got.p50, unit: 'ms', conditions });
        figures.push({ name: `${kind}: ${label}, p95`, value: got.p95, unit: 'ms', conditions: { ...conditions, target: `< ${TARGET_P95_MS} ms`, met: got.p95 < TARGET_P95_MS } });
        notes.push(`${kind} ${label}: ${got.rows} rows, p50 ${got.p50.toFixed(1)} ms, p95 ${got.p95.toFixed(1)} ms, max ${got.max.toFixed(1)} ms — target p95 < ${TARGET_P95_MS} ms ${got.p95 < TARGET_P95_MS ? 'MET' : 'NOT MET'}`);
      }
    }
    const after = await measure(baselineUrl, {}, options.clients);
    const conditions = { server: 'bare Fastify 5 route answering a 50-message page from memory', rounds: ROUNDS, clients: options.clients, before: { p50: before.p50, p95: before.p95 }, after: { p50: after.p50, p95: after.p95 } };
    figures.push({ name: 'baseline: page of 50, p50', value: (before.p50 + after.p50) / 2, unit: 'ms', conditions });
    figures.push({ name: 'baseline: page of 50, p95', value: (before.p95 + after.p95) / 2, unit: 'ms', conditions });
    report(`${NAME}: GET /v1/messages over ${options.n} messages of one account, herald vs bare Fastify`, figures, [
      ...notes, `baseline (bare Fastify, same client): p50 ${((before.p50 + after.p50) / 2).toFixed(1)} ms, p95 ${((before.p95 + after.p95) / 2).toFixed(1)} ms (mean of a round before and after herald)`,
      'latencies are HTTP round trips on 127.0.0.1 (fetch, keep-alive), the first answer of each query unmeasured',
    ]);
  });
}
