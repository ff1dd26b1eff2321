// What the crash tests share (test/e2e/idempotency-crash.test.ts, submission-crash.test.ts):
// a store for two herald lives, herald's first life on it, and a way to learn that a keyed
// send committed before herald could answer it, so the test can SIGKILL herald in that window.
//  - PostgreSQL: herald reaches the database through a relay that holds back the answer to
//    the COMMIT (test/peers/postgres-commit-gate.ts): committed, and herald not yet told.
//  - SQLite (no wire to hold): the test polls the file for the sign of the commit; the
//    answer waits for the commit's fsync, so a kill at the first sight usually lands before it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/database.ts';
import { openStore } from '../../src/store/dialect.ts';
import { startCommitGate } from '../peers/postgres-commit-gate.ts';
import { startHerald, type HeraldProcess } from './herald-process.ts';
import { ADMIN_TOKEN, ledgerByReason, ledgerOf, openAccountByAdmin, type OpenedAccount } from './multi-process.ts';
import { freshSchema } from './postgres.ts';

export type StoreKind = 'sqlite' | 'postgres';

/** Teardown steps, run last-added first once the test ends (node:test runs its `after` hooks in the order added). */
export type Cleanups = (() => unknown)[];

/** A store for two herald lives: a SQLite file, or a PostgreSQL schema of its own. */
export async function storeUrl(cleanups: Cleanups, kind: StoreKind): Promise<string> {
  if (kind === 'postgres') {
    const schema = await freshSchema();
    cleanups.push(() => schema.drop());
    return schema.url;
  }
  const dir = mkdtempSync(join(tmpdir(), 'herald-crash-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'herald.db')}`;
}

/** What herald is given as HERALD_DATABASE_URL, and how the test learns that the send committed. */
export interface CommitWatch {
  readonly heraldUrl: string;
  /** Resolves once the send is committed (herald not yet told, on PostgreSQL). */
  committed(): Promise<void>;
}

/** On SQLite, `found` tells the commit from the file (polled); `debug` adds to the time-out's message. */
export async function watchCommit(cleanups: Cleanups, kind: StoreKind, url: string, found: () => Promise<boolean>, debug: () => string = () => ''): Promise<CommitWatch> {
  if (kind === 'sqlite') {
    return {
      heraldUrl: url,
      async committed() {
        const deadline = Date.now() + 30_000;
        while (!(await found())) {
          assert.ok(Date.now() < deadline, `the send committed within 30 s\n${debug()}`);
          // node:sqlite answers at once: without a turn of the event loop the client's socket would never be written.
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
    };
  }
  const direct = new URL(url);
  const gate = await startCommitGate({ host: direct.hostname, port: Number(direct.port || 5432) });
  cleanups.push(() => gate.close());
  const gated = new URL(url);
  gated.hostname = '127.0.0.1';
  gated.port = String(gate.port);
  let held: Promise<void> | undefined;
  return {
    heraldUrl: gated.href,
    committed: () => (held ??= gate.arm()),
  };
}

/** herald's first life: the process whose keyed send is to be caught between its commit and its answer. */
export interface FirstLife {
  /** The store as the test reads it (and the second life is given). */
  readonly url: string;
  readonly herald: HeraldProcess;
  readonly db: Kysely<Database>;
  /** An account of 100 messages with a verified example.com. */
  readonly account: OpenedAccount;
  readonly watch: CommitWatch;
  /** The idempotency key's row, once committed. */
  storedKey(): Promise<{ account_id: string; answer: string } | undefined>;
}

/** `serve --role api` with `env` on a store of `kind` watched for the commit of the send keyed `key`; stopped and dropped when the test ends. */
export async function startFirstLife(cleanups: Cleanups, kind: StoreKind, key: string, env: Readonly<Record<string, string>> = {}): Promise<FirstLife> {
  const url = await storeUrl(cleanups, kind);
  let db: Kysely<Database> | undefined;
  const storedKey = async () => db?.selectFrom('idempotency_keys').select(['account_id', 'answer']).where('key', '=', key).executeTakeFirst();
  let herald: HeraldProcess | undefined;
  const watch = await watchCommit(cleanups, kind, url, async () => (await storedKey()) !== undefined, () => herald?.output().slice(-3000) ?? '');
  herald = await startHerald('api', { HERALD_DATABASE_URL: watch.heraldUrl, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, ...env });
  const started = herald;
  cleanups.push(() => started.kill());
  // Opened once herald has made the store (a SQLite file opened before herald set it up never sees its writes).
  const store = openStore(url, { poolSize: 1 });
  cleanups.push(() => store.db.destroy());
  db = store.db;
  const account = await openAccountByAdmin(herald, { messagesLeft: 100, rateLimitPerSecond: 1000 });
  return { url, herald, db, account, watch, storedKey };
}

/** After the retry: the account's messages are exactly `msgids`, its ledger the opening and one debit of them, and the second life logged no error. */
export async function assertSentOnce(life: FirstLife, second: HeraldProcess, msgids: readonly string[]): Promise<void> {
  const messages = await life.db.selectFrom('messages').select('id').where('account_id', '=', life.account.id).execute();
  assert.deepStrictEqual(new Set(messages.map((m) => m.id)), new Set(msgids));
  assert.deepStrictEqual(ledgerByReason(await ledgerOf(second, life.account.id)), {
    'account.open': { entries: 1, messages: 100, balance: 0 },
    'email.send': { entries: 1, messages: -msgids.length, balance: 0 },
  });
  assert.deepStrictEqual(second.errorLines(), []);
}
