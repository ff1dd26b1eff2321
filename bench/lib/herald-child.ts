import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createAccount } from '../../src/app/create-account.ts';
import { generateDkimKeys } from '../../src/app/dkim-keys.ts';
import { loadConfig } from '../../src/config.ts';
import { createService } from '../../src/service.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';
import { serveParent } from './child.ts';
import { installSqlTiming, sqlTimings } from './sql-timing.ts';

// herald as it runs in production — createService from HERALD_* variables, the HTTP
// API on a listening socket, the in-process outbox worker — in a process of its own.
// It opens one account (the sender domain example.com verified, with a DKIM key
// unless BENCH_DKIM=off; rate limit and message count high enough for the run) and
// tells the parent the port and the API key.

export interface HeraldReady {
  readonly port: number;
  readonly apiKey: string;
  readonly databaseUrl: string;
}

export interface HeraldStats {
  /** Messages by status. */
  readonly statuses: Record<string, number>;
  /** Outbox rows left (messages still to be tried or retried). */
  readonly outbox: number;
}

if (process.env.BENCH_SQL_TIMING === 'on') installSqlTiming();
const config = loadConfig(process.env);
// BENCH_WORKER=off: no delivery at all, for measuring the accept path alone by hand.
const service = await createService(config, { worker: process.env.BENCH_WORKER !== 'off' });
await service.http.listen({ port: config.port, host: config.host });
const address = service.http.server.address();
if (address === null || typeof address === 'string') throw new Error('herald is not listening on a TCP port');

const { deps } = service;
const { account, apiKey } = await createAccount(deps, {
  name: 'bench',
  messagesLeft: Number(process.env.BENCH_MESSAGES_LEFT ?? 1_000_000),
  rateLimitPerSecond: 1_000_000,
});
const now = deps.clock();
await insertSenderDomain(deps.db, {
  id: deps.newId(), accountId: account.id, domain: 'example.com', verified: true, createdAt: now,
  ...(process.env.BENCH_DKIM === 'off' ? {} : { dkim: await generateDkimKeys(now) }),
});

async function readStats(): Promise<HeraldStats> {
  const rows = await deps.db.selectFrom('messages').select(['status', sql<number>`count(*)`.as('n')]).groupBy('status').execute();
  const outbox = await deps.db.selectFrom('outbox').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return { statuses: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), outbox: Number(outbox.n) };
}

serveParent(
  { port: address.port, apiKey: apiKey.apiKey, databaseUrl: config.databaseUrl } satisfies HeraldReady,
  {
    /** The statuses once the outbox is empty (every outcome recorded), or as they are after `waitMs`. */
    async stats(args): Promise<HeraldStats> {
      const waitMs = (args as { waitMs?: number } | null)?.waitMs ?? 0;
      const until = performance.now() + waitMs;
      let stats = await readStats();
      while (stats.outbox > 0 && performance.now() < until) {
        await sleep(20);
        stats = await readStats();
      }
      return stats;
    },
    async sqlTimings() {
      return sqlTimings();
    },
  },
  () => service.close(),
);
