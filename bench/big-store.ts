import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createAccount } from '../src/app/create-account.ts';
import { loadConfig } from '../src/config.ts';
import { createService } from '../src/service.ts';
import { acceptBodies, SEND_PATHS } from './lib/accept-requests.ts';
import { runLoad, type LoadFigures } from './lib/autocannon-load.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchChannel, type BenchDefaults, type Budget, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase, type BenchDatabase, type DatabaseKind } from './lib/databases.ts';
import { DAY_MS, fillMessages } from './lib/fill-messages.ts';
import type { HeraldStats, StatementPlan, StoreBytes, TableScans } from './lib/herald-child.ts';
import { startHerald, type Herald } from './lib/herald-process.ts';
import { cpuSeconds } from './lib/proc-stats.ts';
import type { SqlTiming } from './lib/sql-timing.ts';

// Issue 15, item 4: does a send cost the same on a store that has lived? Two parts,
// per store (SQLite; PostgreSQL when TEST_POSTGRES_URL is set):
//
// 1. Bytes stored per message: SAMPLE one-recipient emails, then SAMPLE one-number SMS,
//    posted to herald and delivered by the capture transports (worker on, with their
//    events); the store's growth per message, then the same after the retention sweep
//    (app/retention-sweep.ts, run with a clock moved past HERALD_RETENTION_DAYS: first
//    over the emails only, then over everything).
// 2. Accept on a full store vs an empty one: the accept figure (autocannon, --connections,
//    default 50; worker off: the accept path alone) of POST /v1/email and
//    /v1/sms/send on an empty store and on one already holding --n messages (default
//    1,000,000) with their 2–3 events each, written straight into it (bench/lib/fill-messages.ts)
//    in another account; --rounds rounds (default 4), in alternating orders, so that drift on the shared
//    machine weighs on both. Target: the full store within 10 % of the empty one. Then
//    (SQLite) EXPLAIN QUERY PLAN of every statement the full store ran under the load:
//    any SCAN of a table is named; (PostgreSQL) the sequential scans the server counted
//    on its large tables during the loads (pg_stat_user_tables).

export const NAME = 'big-store';
const DEFAULTS: BenchDefaults = { n: 1_000_000, clients: 16, timeoutS: 900 };
const SAMPLE = 1000;
const CHANNELS: readonly BenchChannel[] = ['email', 'sms'];
const TARGET_RATIO = 0.9;
const RETENTION_DAYS = 30;
/** A table this large would show a scan in the accept rate (PostgreSQL's check). */
const BIG_TABLE_ROWS = 10_000;

/** A load's figures and herald's CPU per answered request over it (/proc: much less swayed by the rest of the machine than the rate). */
interface Measured extends LoadFigures {
  readonly cpuMsPerRequest: number;
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

/** `count` sends of `channel`, `clients` at a time, each waiting for its answer; throws on anything but 200. */
async function post(herald: Herald, channel: BenchChannel, count: number, clients: number, from: number): Promise<void> {
  const body = acceptBodies(channel, herald.ready.whatsappTemplateId);
  const url = `http://127.0.0.1:${herald.ready.port}${SEND_PATHS[channel]}`;
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < count) {
      const i = from + next++;
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${herald.ready.apiKey}` }, body: body(i) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text}`);
    }
  }));
}

interface Growth {
  readonly emailBytes: number;
  readonly smsBytes: number;
  readonly emailAfterPurge: number;
  readonly smsAfterPurge: number;
  readonly events: number;
}

/** Part 1: bytes per message, as stored and after the retention purge. */
async function bytesPerMessage(database: BenchDatabase, budget: Budget, logLevel: string, clients: number, defer: (f: () => void | Promise<void>) => void, onAbort: (f: () => void) => void): Promise<Growth> {
  const herald = await startHerald({ database, budget, logLevel, worker: true });
  onAbort(() => herald.kill());
  defer(() => herald.close());
  const size = async (): Promise<number> => (await herald.call<StoreBytes>('storeBytes')).bytes;
  const delivered = async (what: string): Promise<void> => {
    const stats = await budget.within(herald.call<HeraldStats>('stats', { waitMs: 120_000 }), () => `delivering the ${what}`);
    if (stats.outbox > 0) throw new Error(`${stats.outbox} ${what} still undelivered after 120 s`);
  };
  const empty = await size();
  await budget.within(post(herald, 'email', SAMPLE, clients, 0), () => `posting ${SAMPLE} emails`);
  await delivered('emails');
  const withEmail = await size();
  // The SMS created after this instant; the first sweep's clock stops short of them.
  const smsFrom = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 5));
  await budget.within(post(herald, 'sms', SAMPLE, clients, SAMPLE), () => `posting ${SAMPLE} SMS`);
  await delivered('SMS');
  const withSms = await size();
  const events = await herald.call<number>('eventCount');
  await budget.within(herald.call('retentionSweep', { at: smsFrom + RETENTION_DAYS * DAY_MS, days: RETENTION_DAYS }), () => 'purging the emails');
  const emailPurged = await size();
  await budget.within(herald.call('retentionSweep', { at: Date.now() + RETENTION_DAYS * DAY_MS + 1000, days: RETENTION_DAYS }), () => 'purging the SMS');
  const allPurged = await size();
  await herald.close();
  return {
    emailBytes: (withEmail - empty) / SAMPLE,
    smsBytes: (withSms - withEmail) / SAMPLE,
    emailAfterPurge: (withEmail - empty + emailPurged - withSms) / SAMPLE,
    smsAfterPurge: (withSms - withEmail + allPurged - emailPurged) / SAMPLE,
    events: events / (2 * SAMPLE),
  };
}

/** A store holding `n` messages (and their events) of an account other than the bench one. */
async function fillStore(database: BenchDatabase, n: number): Promise<void> {
  const service = await createService(loadConfig({ HERALD_DATABASE_URL: database.url }), { logger: false, worker: false, imports: false });
  try {
    const { account } = await createAccount(service.deps, { name: 'tenant of old', messagesLeft: 0 });
    await fillMessages(service.store, account.id, n, Date.now() - 31 * DAY_MS, { events: true });
    // Statistics (and on PostgreSQL the visibility map) as autovacuum would have them by
    // now on a store that grew to this size; otherwise autovacuum's first pass over the
    // million new rows runs during the first loads and weighs on the full store alone.
    await sql.raw(database.kind === 'postgres' ? 'vacuum analyze' : 'analyze').execute(service.store.db);
  } finally {
    await service.close();
  }
}

export async function bigStore(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  const connections = options.connections.includes(50) ? 50 : (options.connections[0] ?? 50);
  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    const figures: Figure[] = [];
    const notes: string[] = [];
    const verdicts: string[] = [];
    for (const kind of databaseKinds(options.db)) {
      // ---- 1. Bytes per message.
      const sample = await freshDatabase(kind);
      defer(() => sample.drop());
      progress(`${kind}: ${SAMPLE} emails then ${SAMPLE} SMS, delivered, to weigh the store`);
      const growth = await bytesPerMessage(sample, budget, options.logLevel, options.clients, defer, onAbort);
      const sizeConditions = { store: sample.description, sample: SAMPLE, measure: kind === 'sqlite' ? 'pages in use ((page_count - freelist_count) × page_size, WAL included)' : 'sum of pg_total_relation_size over the tables (no VACUUM FULL: freed space stays allocated)', eventsPerMessage: growth.events, retentionDays: RETENTION_DAYS };
      figures.push(
        { name: `${NAME}.${kind}.email.bytes`, value: round(growth.emailBytes, 0), unit: 'bytes/message', conditions: { ...sizeConditions, message: 'one-recipient email (emailRequest: HTML + text, DKIM-signed), captured MIME and events' } },
        { name: `${NAME}.${kind}.email.bytesAfterPurge`, value: round(growth.emailAfterPurge, 0), unit: 'bytes/message', conditions: sizeConditions },
        { name: `${NAME}.${kind}.sms.bytes`, value: round(growth.smsBytes, 0), unit: 'bytes/message', conditions: { ...sizeConditions, message: 'one-number, one-segment SMS and its events' } },
        { name: `${NAME}.${kind}.sms.bytesAfterPurge`, value: round(growth.smsAfterPurge, 0), unit: 'bytes/message', conditions: sizeConditions },
      );
      notes.push(`${kind}: one email ${growth.emailBytes.toFixed(0)} bytes stored, ${growth.emailAfterPurge.toFixed(0)} after the retention purge; one SMS ${growth.smsBytes.toFixed(0)} bytes, ${growth.smsAfterPurge.toFixed(0)} after it (${growth.events.toFixed(1)} event rows per message)`);

      // ---- 2. Accept, empty store vs full store.
      const empty = await freshDatabase(kind);
      defer(() => empty.drop());
      const full = await freshDatabase(kind);
      defer(() => full.drop());
      progress(`${kind}: writing ${options.n} messages with their events into the full store`);
      const t0 = performance.now();
      await budget.within(fillStore(full, options.n), () => `filling the ${kind} store`);
      const fillS = (performance.now() - t0) / 1000;
      progress(`${kind}: written in ${fillS.toFixed(0)} s`);
      const stores: [string, BenchDatabase][] = [['empty', empty], ['full', full]];
      const heralds = new Map<string, Herald>();
      for (const [label, database] of stores) {
        // The statements of the full store's herald are recorded (SQLite) for EXPLAIN; both run the same (cheap) wrapper.
        const herald = await startHerald({ database, budget, logLevel: options.logLevel, worker: false, env: kind === 'sqlite' ? { BENCH_SQL_TIMING: 'on' } : {} });
        onAbort(() => herald.kill());
        defer(() => herald.close());
        heralds.set(label, herald);
      }
      const fullBytes = (await heralds.get('full')!.call<StoreBytes>('storeBytes')).bytes;
      // Only what the loads run is explained, not start-up and migrations.
      for (const herald of heralds.values()) await herald.call('recordSqlTiming', { on: true, reset: true });
      const scansBefore = kind === 'postgres' ? await heralds.get('full')!.call<TableScans[]>('tableScans', { minRows: BIG_TABLE_ROWS }) : [];
      const results = new Map<string, Measured[]>();
      for (let r = 0; r < options.rounds; r += 1) {
        for (const channel of CHANNELS) {
          for (const [label] of r % 2 === 0 ? stores : [...stores].reverse()) {
            const herald = heralds.get(label)!;
            const level = { url: `http://127.0.0.1:${herald.ready.port}${SEND_PATHS[channel]}`, headers: { authorization: `Bearer ${herald.ready.apiKey}` }, body: acceptBodies(channel, herald.ready.whatsappTemplateId), connections, signal: budget.signal };
            const base = r * 10_000_000 + 1_000_000;
            if (options.warmupS > 0) await budget.within(runLoad({ ...level, body: (i) => level.body(base + i), durationS: options.warmupS }), () => `warming up ${channel} on the ${label} ${kind} store`);
            const cpuBefore = cpuSeconds(herald.pid);
            const load = await budget.within(runLoad({ ...level, body: (i) => level.body(base + 5_000_000 + i), durationS: options.durationS }), () => `loading ${channel} on the ${label} ${kind} store`);
            const got = { ...load, cpuMsPerRequest: ((cpuSeconds(herald.pid) - cpuBefore) * 1000) / load.requests };
            progress(`${kind} ${channel} ${label} store, round ${r + 1}: ${got.rps.toFixed(0)} requests/s, p99 ${got.p99Ms} ms, ${got.cpuMsPerRequest.toFixed(3)} ms CPU/request`);
            const key = `${channel}.${label}`;
            results.set(key, [...(results.get(key) ?? []), got]);
          }
        }
      }
      for (const channel of CHANNELS) {
        const mean = (label: string, pick: (f: Measured) => number): number => { const list = results.get(`${channel}.${label}`) ?? []; return list.reduce((s, f) => s + pick(f), 0) / list.length; };
        const emptyRps = mean('empty', (f) => f.rps);
        const fullRps = mean('full', (f) => f.rps);
        const ratio = fullRps / emptyRps;
        const met = ratio >= TARGET_RATIO;
        const conditions = { channel, path: SEND_PATHS[channel], connections, durationS: options.durationS, warmupS: options.warmupS, rounds: options.rounds, worker: 'off: the accept path alone', fullStore: `${options.n} messages with their events (1.9 per message), another account, ${round(fullBytes / 1e6)} MB`, store: full.description };
        figures.push(
          { name: `${NAME}.${kind}.${channel}.empty.rps`, value: round(emptyRps), unit: 'requests/s', conditions: { ...conditions, p99Ms: mean('empty', (f) => f.p99Ms) } },
          { name: `${NAME}.${kind}.${channel}.full.rps`, value: round(fullRps), unit: 'requests/s', conditions: { ...conditions, p99Ms: mean('full', (f) => f.p99Ms) } },
          { name: `${NAME}.${kind}.${channel}.empty.cpuMsPerRequest`, value: round(mean('empty', (f) => f.cpuMsPerRequest), 3), unit: 'ms CPU/request', conditions },
          { name: `${NAME}.${kind}.${channel}.full.cpuMsPerRequest`, value: round(mean('full', (f) => f.cpuMsPerRequest), 3), unit: 'ms CPU/request', conditions },
          { name: `${NAME}.${kind}.${channel}.ratio`, value: round(ratio, 3), unit: 'full/empty rps', conditions: { ...conditions, target: `≥ ${TARGET_RATIO}`, met } },
        );
        verdicts.push(`target ${channel}/${kind} (full store ≥ ${100 * TARGET_RATIO} % of the empty store's accept rate): ${met ? 'MET' : 'NOT MET'} — full ${fullRps.toFixed(0)} req/s (p99 ${mean('full', (f) => f.p99Ms).toFixed(0)} ms) vs empty ${emptyRps.toFixed(0)} req/s (p99 ${mean('empty', (f) => f.p99Ms).toFixed(0)} ms) = ${(100 * ratio).toFixed(1)} %; herald CPU per request ${mean('full', (f) => f.cpuMsPerRequest).toFixed(3)} ms full vs ${mean('empty', (f) => f.cpuMsPerRequest).toFixed(3)} ms empty (×${(mean('full', (f) => f.cpuMsPerRequest) / mean('empty', (f) => f.cpuMsPerRequest)).toFixed(2)})`);
      }
      notes.push(`${kind}: the full store (${options.n} messages and their events) was written in ${fillS.toFixed(0)} s and holds ${(fullBytes / 1e6).toFixed(0)} MB`);
      if (kind === 'sqlite') {
        // Growth first: EXPLAIN's own statements are recorded too.
        const growth = await statementGrowth(heralds.get('empty')!, heralds.get('full')!);
        notes.push(...await explainHotStatements(heralds.get('full')!), ...growth);
      }
      else notes.push(...await postgresScans(heralds.get('full')!, scansBefore));
      for (const herald of heralds.values()) await herald.close();
    }
    report(`${NAME}: bytes per message, and accept on a full store vs an empty one`, figures, [...notes, ...verdicts]);
  });
}

/**
 * PostgreSQL: the statement texts are not recorded there, so the question is asked of
 * the server instead: did any table of more than BIG_TABLE_ROWS rows get a sequential
 * scan during the loads (pg_stat_user_tables, read after the statistics are flushed)?
 */
async function postgresScans(herald: Herald, before: readonly TableScans[]): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 1500)); // backends flush their statistics at most once a second
  const after = await herald.call<TableScans[]>('tableScans', { minRows: BIG_TABLE_ROWS });
  const rows = after.map((table) => {
    const was = before.find((b) => b.table === table.table);
    return { ...table, seqScans: table.seqScans - (was?.seqScans ?? 0), indexScans: table.indexScans - (was?.indexScans ?? 0) };
  });
  const scanned = rows.filter((r) => r.seqScans > 0);
  return [
    `postgres: tables of more than ${BIG_TABLE_ROWS} rows during the loads on the full store (pg_stat_user_tables): ${scanned.length === 0 ? 'no sequential scan' : `${scanned.length} scanned sequentially`}`,
    ...rows.map((r) => `  ${r.table} (${r.rows} rows): ${r.seqScans} sequential scans, ${r.indexScans} index scans`),
  ];
}

/** SQLite: the statements whose time per execution grew most from the empty store to the full one (the SQL timing of both heralds over the same loads). */
async function statementGrowth(empty: Herald, full: Herald): Promise<string[]> {
  const before = new Map((await empty.call<SqlTiming[]>('sqlTimings')).map((t) => [t.sql, t]));
  const after = await full.call<SqlTiming[]>('sqlTimings');
  const perRun = (t: SqlTiming | undefined): number => (t === undefined || t.count === 0 ? 0 : (1000 * t.ms) / t.count);
  const total = (list: Iterable<SqlTiming>): number => [...list].reduce((sum, t) => sum + t.ms, 0);
  // Statements of the requests, not the once-a-minute ones (a key's last use), whose few executions say nothing.
  const rows = after.filter((t) => t.count >= 1000).map((t) => ({ sql: t.sql, empty: perRun(before.get(t.sql)), full: perRun(t) })).sort((a, b) => (b.full - b.empty) - (a.full - a.empty));
  return [
    `sqlite: SQL time over the loads, empty store ${(total(before.values()) / 1000).toFixed(2)} s, full store ${(total(after) / 1000).toFixed(2)} s; per execution, the statements that grew most:`,
    ...rows.slice(0, 5).map((r) => `  ${r.empty.toFixed(1)} → ${r.full.toFixed(1)} µs: ${r.sql.replace(/\s+/g, ' ').slice(0, 140)}`),
  ];
}

/** EXPLAIN QUERY PLAN of every statement the full store's herald ran; a SCAN of a table (not of a handful of rows from an index) is named. */
async function explainHotStatements(herald: Herald): Promise<string[]> {
  const timings = await herald.call<SqlTiming[]>('sqlTimings');
  const statements = timings.map((t) => t.sql).filter((text) => /^\s*(select|insert|update|delete|with)\b/i.test(text));
  const plans = await herald.call<StatementPlan[]>('explain', { statements });
  const scans = plans.flatMap((p) => p.plan.filter((line) => /^SCAN /.test(line) && !/USING (COVERING )?INDEX|CONSTANT ROW/.test(line)).map((line) => `${line} in: ${p.sql.replace(/\s+/g, ' ').slice(0, 160)}`));
  const lines = [`sqlite: EXPLAIN QUERY PLAN of the ${plans.length} statements the full store ran (${timings.reduce((s, t) => s + t.count, 0)} executions): ${scans.length === 0 ? 'no table scan, every lookup by an index' : `${scans.length} table scan(s)`}`];
  for (const scan of scans) lines.push(`  ${scan}`);
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await bigStore(process.argv.slice(2));
