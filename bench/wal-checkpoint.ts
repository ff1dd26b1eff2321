import { mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { uuidv7Source } from '../src/app/uuidv7-source.ts';
import { startWalCheckpointer } from '../src/store/wal-checkpointer.ts';
import { repeatEvery } from '../src/queue/periodic-job.ts';
import pino from 'pino';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Figure } from './lib/common.ts';

// Where SQLite's WAL checkpoints run (store/wal-checkpointer.ts): N group-commit-sized
// batches (20 messages and their outbox rows, ids as herald makes them, `synchronous =
// NORMAL` as the group committer commits) written on the event loop, the time of each
// batch from BEGIN to COMMIT; once with SQLite's own checkpoints inside the commits (the
// baseline, wal_autocheckpoint = 1000), once with herald's checkpoint thread. Same
// process, same disk, one after the other, twice in alternating order.

export const NAME = 'wal-checkpoint';
const DEFAULTS: BenchDefaults = { n: 5000, clients: 1, timeoutS: 300 };
const ROWS_PER_BATCH = 20;

interface Round {
  readonly msPerBatch: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

async function writeBatches(dir: string, batches: number, thread: boolean): Promise<Round> {
  const location = join(dir, `${thread ? 'thread' : 'sqlite'}-${Date.now()}.db`);
  const db = new DatabaseSync(location);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
  db.exec('create table messages (id text primary key, account_id text not null, recipient text not null, status text not null, created_at integer not null)');
  db.exec('create index messages_account_created on messages (account_id, created_at)');
  db.exec('create table outbox (message_id text primary key, available_at integer not null)');
  db.exec('create index outbox_available on outbox (available_at)');
  const checkpointer = thread
    ? startWalCheckpointer(location, { repeat: repeatEvery('wal-checkpoint', { logger: pino({ level: 'silent' }) }), startAtBatchesPerSecond: 0, setAutocheckpoint: (pages) => db.exec(`PRAGMA wal_autocheckpoint = ${pages}`), onFailure: (error) => { throw error; } })
    : undefined;
  checkpointer?.beforeBatch();
  await checkpointer?.running();
  const insertMessage = db.prepare('insert into messages values (?, ?, ?, ?, ?)');
  const insertOutbox = db.prepare('insert into outbox values (?, ?)');
  const ids = uuidv7Source(Date.now);
  const times: number[] = [];
  for (let b = 0; b < batches; b += 1) {
    const held = checkpointer?.beforeBatch();
    if (held !== undefined) await held;
    const started = performance.now();
    db.exec('begin immediate');
    for (let i = 0; i < ROWS_PER_BATCH; i += 1) {
      const id = ids();
      insertMessage.run(id, 'account-1', `+5215500${String(b * ROWS_PER_BATCH + i).padStart(6, '0')}`, 'queued', Date.now());
      insertOutbox.run(id, Date.now());
    }
    db.exec('commit');
    times.push(performance.now() - started);
    // The group committer starts its next batch on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await checkpointer?.close();
  db.close();
  const sorted = [...times].sort((a, b) => a - b);
  return { msPerBatch: times.reduce((s, t) => s + t, 0) / times.length, p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0, maxMs: sorted.at(-1) ?? 0 };
}

export async function walCheckpoint(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer }) => {
    const dir = await mkdtemp(join(tmpdir(), 'herald-bench-wal-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    const rounds: { thread: boolean; round: Round }[] = [];
    for (const thread of [false, true, true, false]) {
      const round = await budget.within(writeBatches(dir, options.n, thread), () => `writing ${options.n} batches (${thread ? 'checkpoint thread' : "SQLite's checkpoints"})`);
      progress(`${thread ? 'checkpoint thread' : "SQLite's checkpoints"}: ${round.msPerBatch.toFixed(3)} ms per batch, p99 ${round.p99Ms.toFixed(2)} ms, max ${round.maxMs.toFixed(1)} ms`);
      rounds.push({ thread, round });
    }
    const mean = (thread: boolean, pick: (r: Round) => number): number => {
      const list = rounds.filter((r) => r.thread === thread).map((r) => pick(r.round));
      return list.reduce((s, v) => s + v, 0) / list.length;
    };
    const conditions = { batches: options.n, rowsPerBatch: ROWS_PER_BATCH, rows: 'a message row (2 indexes) and an outbox row (2 indexes) per message, UUIDv7 keys', synchronous: 'NORMAL (the group committer syncs the WAL itself)', rounds: 'SQLite, thread, thread, SQLite; means' };
    const figures: Figure[] = [
      { name: `${NAME}.sqlite-checkpoints.msPerBatch`, value: mean(false, (r) => r.msPerBatch), unit: 'ms', conditions },
      { name: `${NAME}.sqlite-checkpoints.p99`, value: mean(false, (r) => r.p99Ms), unit: 'ms', conditions },
      { name: `${NAME}.thread.msPerBatch`, value: mean(true, (r) => r.msPerBatch), unit: 'ms', conditions },
      { name: `${NAME}.thread.p99`, value: mean(true, (r) => r.p99Ms), unit: 'ms', conditions },
      { name: `${NAME}.ratio`, value: mean(false, (r) => r.msPerBatch) / mean(true, (r) => r.msPerBatch), unit: 'SQLite checkpoints / thread (time per batch)', conditions },
    ];
    report(`${NAME}: ${options.n} batches of ${ROWS_PER_BATCH} messages on the event loop, SQLite's checkpoints vs herald's checkpoint thread`, figures);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await walCheckpoint(process.argv.slice(2));
