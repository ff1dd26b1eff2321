import { sql, type Kysely } from 'kysely';
import { generateDkimKeys } from '../src/app/dkim-keys.ts';
import { createAccount } from '../src/app/create-account.ts';
import { loadConfig } from '../src/config.ts';
import { createService, type Service } from '../src/service.ts';
import { insertSenderDomain } from '../src/store/sender-domains.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase, type DatabaseKind } from './lib/databases.ts';

// Storage of one email to many recipients: the bytes the store grows by for one
// POST /v1/email to 1,000 and to N (--n, default 10,000) recipients, accepted and
// delivered by the capture transport (DKIM-signed, as herald sends it), on a fresh
// SQLite file (then PostgreSQL when TEST_POSTGRES_URL is set). Every copy carries the
// whole To header, so what each copy stores decides whether storage grows linearly or
// quadratically with the recipients.
//
// Composing a copy costs time linear in the To header (about 0.2 s a copy at 10,000
// recipients), so delivering 10,000 copies would take most of an hour: past FULL_UP_TO
// recipients, SAMPLES copies are delivered, the store measured after each sample, and the
// growth per copy (the slope between the samples) carried to all N copies:
// stored(N) = stored(after accept) + stored(first sample) − slope × first + slope × N.
// At 1,000 every copy is delivered, so that figure is measured whole.

export const NAME = 'storage';
const DEFAULTS: BenchDefaults = { n: 10_000, clients: 1, timeoutS: 900 };
const FULL_UP_TO = 1000;
const SAMPLES = [100, 300] as const;

const mb = (bytes: number): number => Number((bytes / 1e6).toFixed(2));

/** Bytes the store takes, in all and for the tables that hold captures. */
interface StoreSize {
  readonly total: number;
  readonly captures: number;
}

async function storeSize(kind: DatabaseKind, db: Kysely<unknown>): Promise<StoreSize> {
  if (kind === 'sqlite') {
    await sql`pragma wal_checkpoint(truncate)`.execute(db);
    // dbstat: the pages each table and index takes (used bytes of the file, free pages left out).
    const { rows } = await sql<{ name: string; bytes: number }>`select name, sum(pgsize) as bytes from dbstat group by name`.execute(db);
    const total = rows.reduce((sum, r) => sum + Number(r.bytes), 0);
    const captures = rows.filter((r) => /^(captures|mime_pieces)$|^sqlite_autoindex_(captures|mime_pieces)_/.test(r.name)).reduce((sum, r) => sum + Number(r.bytes), 0);
    return { total, captures };
  }
  // Tables with their TOAST and indexes, in the schema herald uses.
  const { rows } = await sql<{ relname: string; bytes: string }>`
    select c.relname, pg_total_relation_size(c.oid) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'`.execute(db);
  const total = rows.reduce((sum, r) => sum + Number(r.bytes), 0);
  const captures = rows.filter((r) => r.relname === 'captures' || r.relname === 'mime_pieces').reduce((sum, r) => sum + Number(r.bytes), 0);
  return { total, captures };
}

async function capturesStored(db: Kysely<unknown>): Promise<number> {
  const { rows: [row] } = await sql<{ n: number }>`select count(*) as n from captures`.execute(db);
  return Number(row?.n ?? 0);
}

/** Runs the worker until at least `copies` captures are stored, then stops it; the number stored. */
async function deliverUpTo(service: Service, db: Kysely<unknown>, copies: number): Promise<number> {
  service.worker?.start();
  while ((await capturesStored(db)) < copies) await new Promise((resolve) => setTimeout(resolve, 50));
  await service.worker?.stop();
  return capturesStored(db);
}

interface Measured {
  readonly afterAccept: StoreSize;
  /** Stored after all copies were delivered: measured, or carried from the samples. */
  readonly delivered: StoreSize;
  readonly copiesDelivered: number;
}

async function measure(kind: DatabaseKind, recipients: number, dkim: boolean, logLevel: string, defer: (f: () => Promise<void>) => void): Promise<Measured> {
  const database = await freshDatabase(kind);
  defer(() => database.drop());
  // The recipient limit (default 2,000) raised to the send measured.
  const config = loadConfig({ HERALD_DATABASE_URL: database.url, HERALD_LOG_LEVEL: logLevel, HERALD_MAX_EMAIL_RECIPIENTS: String(recipients) });
  const service = await createService(config, { logger: false, worker: false, workerOptions: { batchSize: 25, concurrency: 25 } });
  try {
    return await measureOn(kind, service, recipients, dkim);
  } finally {
    await service.close();
  }
}

async function measureOn(kind: DatabaseKind, service: Service, recipients: number, dkim: boolean): Promise<Measured> {
  const db = service.deps.db as unknown as Kysely<unknown>;
  const now = service.deps.clock();
  const { account, apiKey } = await createAccount(service.deps, { name: 'bench', messagesLeft: recipients, rateLimitPerSecond: 100_000 });
  await insertSenderDomain(service.deps.db, {
    id: service.deps.newId(), accountId: account.id, domain: 'example.com', verified: true, createdAt: now,
    ...(dkim ? { dkim: await generateDkimKeys(now) } : {}),
  });

  const before = await storeSize(kind, db);
  const to = Array.from({ length: recipients }, (_, i) => ({ email: `reader${i}@example${i % 50}.org`, name: `Reader ${i}` }));
  const res = await service.http.inject({
    method: 'POST', url: '/v1/email',
    headers: { authorization: `Bearer ${apiKey.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({
      to, from: { email: 'news@example.com', name: 'Example News' }, replyTo: { email: 'help@example.com', name: 'Help' },
      subject: 'The monthly letter', body: `<p>${'A paragraph of the monthly letter. '.repeat(60)}</p>`,
    }),
  });
  if (res.statusCode !== 200) throw new Error(`the send was refused: ${res.statusCode} ${res.body}`);
  const accepted = await storeSize(kind, db);
  const grown = (size: StoreSize): StoreSize => ({ total: size.total - before.total, captures: size.captures - before.captures });

  if (recipients <= FULL_UP_TO) {
    progress(`${kind}: delivering all ${recipients} copies`);
    const copies = await deliverUpTo(service, db, recipients);
    return { afterAccept: grown(accepted), delivered: grown(await storeSize(kind, db)), copiesDelivered: copies };
  }
  const points: { copies: number; size: StoreSize }[] = [];
  for (const sample of SAMPLES) {
    progress(`${kind}: delivering ${sample} of ${recipients} copies`);
    const copies = await deliverUpTo(service, db, sample);
    points.push({ copies, size: grown(await storeSize(kind, db)) });
  }
  const [first, last] = [points[0], points.at(-1)];
  if (first === undefined || last === undefined || last.copies === first.copies) throw new Error('the samples delivered no copies between them');
  const carried = (pick: (s: StoreSize) => number): number => {
    const slope = (pick(last.size) - pick(first.size)) / (last.copies - first.copies);
    return pick(first.size) + slope * (recipients - first.copies);
  };
  return { afterAccept: grown(accepted), delivered: { total: carried((s) => s.total), captures: carried((s) => s.captures) }, copiesDelivered: last.copies };
}

export async function storage(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  return harness(NAME, options.timeoutS, rerun, async (h) => {
    const figures: Figure[] = [];
    const counts = [...new Set([Math.min(FULL_UP_TO, options.n), options.n])];
    for (const kind of databaseKinds(options.db)) {
      for (const recipients of counts) {
        const m = await h.budget.within(measure(kind, recipients, options.dkim, options.logLevel, (f) => h.defer(f)), () => `measuring ${kind} at ${recipients} recipients`);
        const how = m.copiesDelivered >= recipients ? 'measured' : `carried from ${SAMPLES.join(' and ')} delivered copies`;
        const conditions = { store: kind, recipients, dkim: options.dkim, copies_delivered: m.copiesDelivered, how };
        figures.push({ name: `${kind}: ${recipients} recipients, accepted (sends, messages, events, outbox)`, value: mb(m.afterAccept.total), unit: 'MB', conditions });
        figures.push({ name: `${kind}: ${recipients} recipients, delivered, whole store (${how})`, value: mb(m.delivered.total), unit: 'MB', conditions });
        figures.push({ name: `${kind}: ${recipients} recipients, delivered, captures (${how})`, value: mb(m.delivered.captures), unit: 'MB', conditions });
        figures.push({ name: `${kind}: ${recipients} recipients, delivered, per copy`, value: Math.round(m.delivered.total / recipients), unit: 'bytes', conditions });
      }
    }
    report('storage: one email to many recipients, bytes the store grew by', figures, [
      'sizes are pages in use (SQLite dbstat after a WAL checkpoint; PostgreSQL pg_total_relation_size, TOAST and indexes included)',
      `past ${FULL_UP_TO} recipients the delivered figures are carried linearly from the samples (see bench/storage.ts)`,
    ]);
  });
}
