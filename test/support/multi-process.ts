// What the multi-process tests share (test/e2e/multi-process.test.ts): herald processes
// started as the operator starts them (test/support/herald-process.ts), all on one new
// schema of TEST_POSTGRES_URL and one Redis key prefix of TEST_REDIS_URL, reached only
// over HTTP; the test reads the schema directly for what the API does not show.
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/store/database.ts';
import { openStore } from '../../src/store/dialect.ts';
import { startHerald, type HeraldProcess } from './herald-process.ts';
import { freshSchema, TEST_POSTGRES_URL } from './postgres.ts';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL;

/** Why these tests cannot run here, or false: they need a PostgreSQL and a Redis server (`.ci/run` provides both). */
export const skipWithoutServers: string | false =
  TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === '' ? 'needs PostgreSQL and Redis: TEST_POSTGRES_URL is not set'
    : TEST_REDIS_URL === undefined || TEST_REDIS_URL === '' ? 'needs PostgreSQL and Redis: TEST_REDIS_URL is not set'
      : false;

export const ADMIN_TOKEN = `multi-process-admin-${randomBytes(12).toString('hex')}`;

export interface Cluster {
  readonly apis: readonly HeraldProcess[];
  /** In the order of ClusterOptions.workers. */
  readonly workers: readonly HeraldProcess[];
  /** The schema every process uses, for the test's own reads. */
  readonly db: Kysely<Database>;
  /** What the processes' database connections are doing, for a failure message. */
  activity(): Promise<string>;
  /** Starts one more worker (after one was killed), with `env` on top of ClusterOptions.workerEnv. */
  startWorker(env?: Readonly<Record<string, string>>): Promise<HeraldProcess>;
  /** Kills every process (SIGKILL), closes the test's connections and drops the schema. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  readonly apis: number;
  /** One entry per worker process: its own settings, on top of `workerEnv`. */
  readonly workers: readonly Readonly<Record<string, string>>[];
  /** Settings of every worker process (the email transport). */
  readonly workerEnv?: Readonly<Record<string, string>>;
  /**
   * HERALD_REDIS_FAILURE (default `local`, as shipped). `closed` for the rate-limit tests:
   * a Redis that does not answer in time then shows as a 503, not as a limit counted
   * per process that passes or fails them for the wrong reason.
   */
  readonly redisFailure?: 'closed' | 'local';
  /** A server of the test's own instead of TEST_POSTGRES_URL (the fault tests restart it). */
  readonly postgresUrl?: string;
  /** A Redis of the test's own instead of TEST_REDIS_URL. */
  readonly redisUrl?: string;
}

/** `apis` × `serve --role api` and a `serve --role worker` per `workers` entry, started together (they migrate the new schema together, too). */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  if ((options.postgresUrl === undefined || redisUrl === undefined) && skipWithoutServers !== false) throw new Error(skipWithoutServers);
  const schema = await freshSchema(options.postgresUrl);
  const shared: Record<string, string> = {
    HERALD_DATABASE_URL: schema.url,
    HERALD_REDIS_URL: redisUrl!,
    HERALD_REDIS_FAILURE: options.redisFailure ?? 'local',
    HERALD_REDIS_PREFIX: `test:${randomUUID()}:`,
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
    HERALD_PUBLIC_URL: 'http://herald.test',
    HERALD_BOUNCE_DOMAIN: 'bounces.herald.test',
  };
  const launched: HeraldProcess[] = [];
  let count = 0;
  const start = async (role: 'api' | 'worker', env: Readonly<Record<string, string>> = {}): Promise<HeraldProcess> => {
    // Named in pg_stat_activity, so a stall can be traced to its process (see activity()).
    const database = new URL(schema.url);
    database.searchParams.set('application_name', `${schema.name}-${role}-${(count += 1)}`);
    const child = await startHerald(role, { ...shared, HERALD_DATABASE_URL: database.href, ...(role === 'worker' ? options.workerEnv : {}), ...env });
    launched.push(child);
    return child;
  };
  const store = openStore(schema.url, { poolSize: 2 });
  const stop = async (): Promise<void> => {
    await Promise.all(launched.map((p) => p.kill()));
    await store.db.destroy();
    await schema.drop();
  };
  const settled = await Promise.allSettled([
    ...Array.from({ length: options.apis }, () => start('api')),
    ...options.workers.map((env) => start('worker', env)),
  ]);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await stop();
    throw failed.reason;
  }
  // In the order asked for (not the order they became ready): workers[i] has options.workers[i].
  const processes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const activity = async (): Promise<string> => {
    const { rows } = await sql<{ name: string; state: string | null; wait: string | null; query: string }>`
      select application_name as name, state, wait_event_type || ':' || wait_event as wait, left(query, 120) as query
      from pg_stat_activity where application_name like ${`${schema.name}-%`} and state <> 'idle' order by application_name`.execute(store.db);
    return rows.map((r) => `${r.name} ${r.state ?? ''} ${r.wait ?? ''} ${r.query}`).join('\n') || '(every connection idle)';
  };
  return { apis: processes.slice(0, options.apis), workers: processes.slice(options.apis), db: store.db, activity, startWorker: (env) => start('worker', env), stop };
}

const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

export interface OpenedAccount {
  readonly id: string;
  readonly apiKey: string;
}

/** Opens an account (a name of its own: names are unique) through an API process's admin API, with the verified sender domain example.com. */
export async function openAccountByAdmin(
  api: Pick<HeraldProcess, 'url'>, fields: { messagesLeft: number; rateLimitPerSecond: number; balance?: number; whatsappPrice?: number },
): Promise<OpenedAccount> {
  const opened = await fetch(`${api.url}/admin/v1/accounts`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ name: `multi-process ${randomUUID()}`, ...fields }) });
  if (opened.status !== 201) throw new Error(`opening the account: ${opened.status} ${await opened.text()}`);
  const { account, apiKey } = (await opened.json()) as { account: { id: string }; apiKey: { apiKey: string } };
  const domain = await fetch(`${api.url}/admin/v1/accounts/${account.id}/domains`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ domain: 'example.com', verified: true }) });
  if (domain.status !== 201) throw new Error(`adding the sender domain: ${domain.status} ${await domain.text()}`);
  return { id: account.id, apiKey: apiKey.apiKey };
}

/** The account's messagesLeft, as the admin API shows it. */
export async function messagesLeftOf(api: Pick<HeraldProcess, 'url'>, accountId: string): Promise<number> {
  const res = await fetch(`${api.url}/admin/v1/accounts/${accountId}`, { headers: adminHeaders });
  return ((await res.json()) as { messagesLeft: number }).messagesLeft;
}

export interface LedgerLine {
  readonly reason: string;
  readonly messagesDelta: number;
  readonly balanceDelta: number;
}

/** The account's ledger, oldest first, as the admin API shows it. */
export async function ledgerOf(api: HeraldProcess, accountId: string): Promise<LedgerLine[]> {
  const res = await fetch(`${api.url}/admin/v1/accounts/${accountId}/ledger`, { headers: adminHeaders });
  return ((await res.json()) as { entries: LedgerLine[] }).entries.map(({ reason, messagesDelta, balanceDelta }) => ({ reason, messagesDelta, balanceDelta }));
}

/** The ledger folded to one line per reason: how many entries, and their sums. */
export function ledgerByReason(lines: readonly LedgerLine[]): Record<string, { entries: number; messages: number; balance: number }> {
  const byReason: Record<string, { entries: number; messages: number; balance: number }> = {};
  for (const line of lines) {
    const sum = (byReason[line.reason] ??= { entries: 0, messages: 0, balance: 0 });
    sum.entries += 1;
    sum.messages += line.messagesDelta;
    sum.balance += line.balanceDelta;
  }
  return byReason;
}

/** POST /v1/email of a one-recipient email from example.com. */
export function sendEmail(api: HeraldProcess, apiKey: string, to: string): Promise<Response> {
  return fetch(`${api.url}/v1/email`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ to: [{ email: to }], from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' }, subject: 'Hello', body: '<p>Hi there</p>' }),
  });
}
