import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createAccount } from '../../src/app/create-account.ts';
import { createWhatsappTemplate } from '../../src/app/create-whatsapp-template.ts';
import { generateDkimKeys } from '../../src/app/dkim-keys.ts';
import { loadConfig } from '../../src/config.ts';
import { DEFAULT_RETENTION_OPTIONS, sweep } from '../../src/app/retention-sweep.ts';
import { createService } from '../../src/service.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';
import { serveParent } from './child.ts';
import { installSqlTiming, recordSqlTiming, sqlTimings } from './sql-timing.ts';

// herald as it runs in production — createService from HERALD_* variables, the HTTP
// API on a listening socket, the in-process outbox worker — in a process of its own.
// It opens one account (the sender domain example.com verified, with a DKIM key
// unless BENCH_DKIM=off; rate limit, message count and balance high enough for the
// run; one approved WhatsApp template) and tells the parent the port, the API key
// and the template's id.

export interface HeraldReady {
  readonly port: number;
  readonly apiKey: string;
  readonly databaseUrl: string;
  /** An approved template with one parameter: "Your code is {{1}}. It expires in 10 minutes." */
  readonly whatsappTemplateId: string;
  /** The bound STARTTLS port of SMTP submission (HERALD_SUBMISSION_PORT=0 picks it); undefined when off. */
  readonly submissionPort: number | undefined;
}

/** Price of one WhatsApp message on the bench account, in 1/10,000 units (0.05). */
export const BENCH_WHATSAPP_PRICE = 500;

/** The store's size (bench/big-store.ts): SQLite, the pages in use (the file less its free pages, WAL included); PostgreSQL, pg_total_relation_size over every table. */
export interface StoreBytes {
  readonly bytes: number;
}

/** One statement's query plan (SQLite's EXPLAIN QUERY PLAN, its `detail` lines). */
export interface StatementPlan {
  readonly sql: string;
  readonly plan: readonly string[];
}

export interface TableScans {
  readonly table: string;
  readonly seqScans: number;
  readonly indexScans: number;
  readonly rows: number;
}

export interface HeraldStats {
  /** Messages by status. */
  readonly statuses: Record<string, number>;
  /** Outbox rows left (messages still to be tried or retried). */
  readonly outbox: number;
}

if (process.env.BENCH_SQL_TIMING === 'on') installSqlTiming();
const config = loadConfig(process.env);
// BENCH_WORKER=off (--worker off): no delivery at all, the accept path alone.
const service = await createService(config, { worker: process.env.BENCH_WORKER !== 'off' });
await service.http.listen({ port: config.port, host: config.host });
const address = service.http.server.address();
if (address === null || typeof address === 'string') throw new Error('herald is not listening on a TCP port');

const { deps } = service;
const messagesLeft = Number(process.env.BENCH_MESSAGES_LEFT ?? 1_000_000);
const { account, apiKey } = await createAccount(deps, {
  name: 'bench',
  messagesLeft,
  rateLimitPerSecond: 1_000_000,
  whatsappPrice: BENCH_WHATSAPP_PRICE,
  balance: BENCH_WHATSAPP_PRICE * messagesLeft,
});
const now = deps.clock();
await insertSenderDomain(deps.db, {
  id: deps.newId(), accountId: account.id, domain: 'example.com', verified: true, createdAt: now,
  ...(process.env.BENCH_DKIM === 'off' ? {} : { dkim: await generateDkimKeys(now) }),
});

const template = await createWhatsappTemplate(deps, account.id, { name: 'bench_code', language: 'en_US', body: 'Your code is {{1}}. It expires in 10 minutes.' });
if (!template.ok) throw new Error(`the bench WhatsApp template was refused: ${JSON.stringify(template)}`);

async function readStats(): Promise<HeraldStats> {
  // The outbox first: once it is empty the statuses read after it are final (read the
  // other way round, a delivery finishing in between shows as `sending` with no row).
  const outbox = await deps.db.selectFrom('outbox').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const rows = await deps.db.selectFrom('messages').select(['status', sql<number>`count(*)`.as('n')]).groupBy('status').execute();
  return { statuses: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), outbox: Number(outbox.n) };
}

const postgres = !config.databaseUrl.startsWith('sqlite:');

async function storeBytes(): Promise<StoreBytes> {
  if (postgres) {
    const { rows } = await sql<{ bytes: string }>`select coalesce(sum(pg_total_relation_size(c.oid)), 0) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind = 'r'`.execute(deps.db);
    return { bytes: Number(rows[0]?.bytes ?? 0) };
  }
  const pragma = async (name: string): Promise<number> => Number(Object.values((await sql.raw(`pragma ${name}`).execute(deps.db)).rows[0] as Record<string, unknown>)[0]);
  return { bytes: ((await pragma('page_count')) - (await pragma('freelist_count'))) * (await pragma('page_size')) };
}

serveParent(
  {
    port: address.port, apiKey: apiKey.apiKey, databaseUrl: config.databaseUrl, whatsappTemplateId: template.value.templateId,
    submissionPort: service.submission?.starttlsPort,
  } satisfies HeraldReady,
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
    storeBytes,
    async eventCount(): Promise<number> {
      const row = await deps.db.selectFrom('message_events').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** HERALD_RETENTION_DAYS' sweep (app/retention-sweep.ts), run now with the clock at `at`: what it purged. */
    async retentionSweep(args) {
      const { at, days } = args as { at: number; days: number };
      return sweep({ db: deps.db, commit: deps.commit, clock: () => at, logger: pino({ level: 'silent' }) }, { ...DEFAULT_RETENTION_OPTIONS, days });
    },
    /** PostgreSQL: sequential and index scans so far of each table with more than `minRows` rows (pg_stat_user_tables). */
    async tableScans(args): Promise<TableScans[]> {
      const { minRows } = args as { minRows: number };
      const { rows } = await sql<{ table: string; seq: string; idx: string | null; rows: string }>`select relname as "table", seq_scan as seq, idx_scan as idx, n_live_tup as rows from pg_stat_user_tables where n_live_tup > ${minRows} order by relname`.execute(deps.db);
      return rows.map((row) => ({ table: row.table, seqScans: Number(row.seq), indexScans: Number(row.idx ?? 0), rows: Number(row.rows) }));
    },
    /** SQLite: EXPLAIN QUERY PLAN of each statement (parameters unbound: the plan, not the rows). */
    async explain(args): Promise<StatementPlan[]> {
      const plans: StatementPlan[] = [];
      for (const text of (args as { statements: string[] }).statements) {
        const { rows } = await sql.raw<{ detail: string }>(`explain query plan ${text}`).execute(deps.db);
        plans.push({ sql: text, plan: rows.map((row) => row.detail) });
      }
      return plans;
    },
    async sqlTimings() {
      return sqlTimings();
    },
    /** process.memoryUsage(): what the resident set is made of (V8 heap, external, array buffers). */
    async memoryUsage() {
      return process.memoryUsage();
    },
    /** `{on: false}` pauses the SQL timing (set up by BENCH_SQL_TIMING=on), `{on: true}` resumes it; `reset` forgets the past. */
    async recordSqlTiming(args) {
      const { on, reset } = args as { on: boolean; reset?: boolean };
      recordSqlTiming(on, reset ?? false);
    },
  },
  () => service.close(),
);
