import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ImportView } from '../campaigns/contact-shapes.ts';
import { csvHeader, firstCsvRecord, importRows, MalformedImport, MAX_IMPORT_ROWS, startsJsonArray, type ImportFormat, type ImportRow } from '../campaigns/import-rows.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { channelActive, type Account } from '../domain/account.ts';
import { ok, reject, RejectionError, type Rejection, type Result } from '../domain/result.ts';
import { WIRE_TEXTS } from '../domain/wire-texts.ts';
import {
  abandonedUploads, appendChunk, deleteImport, dropFirstChunk, endedWithChunks, endImport, findImport, importChunks, importsInFlight, insertImport, markReceived, recordProgress, type ContactImport, type ImportError,
} from '../store/contact-imports.ts';
import { contactQuotaText, DEFAULT_ACCOUNT_QUOTAS, quotaExceeded } from './account-quotas.ts';
import { countContacts } from '../store/contacts.ts';
import { findList } from '../store/lists.ts';
import type { KeyDeps } from './api-keys.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { joinLists, prepareJoins, upsertContacts, type ListJoin } from './subscribe-contacts.ts';

// Bulk import of contacts (POST /v1/contacts/imports). The body is stored in the
// database as it arrives, in chunks of CHUNK_BYTES (never whole in memory), and
// answered 202 {import_id} once it is all there; an import runner
// (campaigns/import-runner.ts) reads it back and commits BATCH_ROWS rows at a time,
// each batch with the import's progress. A restart resumes after the last committed
// batch: the body is parsed again from the start and the rows already counted are
// skipped (docs/campaigns.md).

/**
 * Stored chunk size: the memory an upload or a running import holds of the body. On
 * SQLite, writing or deleting a chunk is one statement on the event loop's thread: a
 * MiB took 20 ms and more on a busy disk, a quarter of it a quarter as long.
 */
export const CHUNK_BYTES = 256 * 1024;
/**
 * Rows per transaction. A batch's statements run on the event loop's thread on SQLite:
 * 1,000 rows held it 35–100 ms on a busy machine, 250 rows a quarter of that.
 */
export const BATCH_ROWS = 250;
/** Errors an import keeps (the first ones). */
export const MAX_IMPORT_ERRORS = 100;
/** How long an upload's lease lasts between chunks before a runner may clear it as abandoned. */
const UPLOAD_LEASE_MS = 10 * 60_000;

const iso = (ms: number): string => new Date(ms).toISOString();

export function importView(imp: ContactImport): ImportView {
  return {
    import_id: imp.id, list_id: imp.listId, status: imp.status === 'receiving' ? 'running' : imp.status, rows: imp.rows, created: imp.created,
    updated: imp.updated, rejected: imp.rejected, errors: imp.errors.map((e) => ({ row: e.row, message: e.message })), failure: imp.failure,
    created_at: iso(imp.createdAt), finished_at: imp.finishedAt === null ? null : iso(imp.finishedAt),
  };
}

/** GET /v1/contacts/imports/:import_id */
export async function getImport(deps: KeyDeps, accountId: string, id: string): Promise<Result<ImportView>> {
  const imp = await findImport(deps.db, accountId, id);
  // An upload still arriving has not been answered yet: nobody can know its id.
  return imp === undefined || imp.status === 'receiving' ? reject('notFound') : ok(importView(imp));
}

/** The body's format from its Content-Type; undefined for anything else. */
export function importFormatOf(contentType: string | undefined): ImportFormat | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'text/csv') return 'csv';
  if (type === 'application/json') return 'json';
  return undefined;
}

/**
 * The charset an upload's Content-Type names (`text/csv; charset=windows-1252`), as a
 * TextDecoder label; undefined for none or UTF-8 (the default). Null: a charset no
 * decoder knows.
 */
export function importCharsetOf(contentType: string | undefined): string | undefined | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  if (match === null) return undefined;
  const label = (match[1] ?? '').toLowerCase();
  try {
    const encoding = new TextDecoder(label).encoding;
    return encoding === 'utf-8' ? undefined : encoding;
  } catch {
    return null;
  }
}

/**
 * Splits a byte stream into text chunks of about CHUNK_BYTES. UTF-8 (no charset named):
 * each cut after a whole character and decoded strictly; a chunk with bytes that are
 * not UTF-8 is decoded with U+FFFD in their place, and import-rows.ts refuses the rows
 * holding one (never stored silently). A named charset is decoded as such.
 */
async function* textChunks(body: AsyncIterable<Buffer>, limitBytes: number, charset: string | undefined): AsyncGenerator<{ text: string; bytes: number }> {
  const strict = new TextDecoder('utf-8', { fatal: true });
  const lenient = new TextDecoder(charset ?? 'utf-8');
  const decode = (bytes: Uint8Array): string => {
    if (charset !== undefined) return lenient.decode(bytes, { stream: true });
    try {
      return strict.decode(bytes);
    } catch {
      return lenient.decode(bytes);
    }
  };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  for await (const part of body) {
    total += part.length;
    if (total > limitBytes) throw new RejectionError({ code: 'bodyTooLarge' });
    pending.push(part);
    pendingBytes += part.length;
    while (pendingBytes >= CHUNK_BYTES) {
      const joined = Buffer.concat(pending);
      let cut = CHUNK_BYTES;
      // Back off to the start of a character: continuation bytes are 10xxxxxx.
      while (charset === undefined && cut > 0 && ((joined[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
      yield { text: decode(joined.subarray(0, cut)), bytes: cut };
      pending = [joined.subarray(cut)];
      pendingBytes = joined.length - cut;
    }
  }
  const rest = pendingBytes > 0 ? decode(Buffer.concat(pending)) : '';
  const flushed = charset === undefined ? rest : rest + lenient.decode();
  if (flushed !== '') yield { text: flushed, bytes: pendingBytes };
}

/** The first chunk's verdict: a CSV header with an email column and attribute names, or the start of a JSON array. */
function checkStart(format: ImportFormat, first: string, whole: boolean): Rejection | undefined {
  if (first.trim() === '' || first.trim() === '\uFEFF') return { code: 'importEmpty' };
  if (format === 'json') return startsJsonArray(first) ? undefined : { code: 'importNotArray' };
  const record = firstCsvRecord(first, whole);
  if (record === undefined) return { code: 'invalidField', detail: 'the CSV header row could not be read' };
  const header = csvHeader(record);
  if (header.ok) return undefined;
  return header.problem === 'no-email' ? { code: 'importNoEmailColumn' } : { code: 'invalidField', detail: header.problem };
}

/**
 * POST /v1/contacts/imports — stores the body and answers its import id. Refused at
 * once: a list that is not the account's (404), a double opt-in list that cannot send
 * its confirmations (401), a body over the limit (413), an empty body, a CSV without
 * an email column, JSON that is not an array (400). Rows are checked later, one by one.
 */
export async function receiveImport(
  deps: KeyDeps, account: Account,
  upload: { format: ImportFormat; charset?: string | undefined; listId: string | undefined; body: AsyncIterable<Buffer>; limitBytes: number; mode?: KeyMode },
): Promise<Result<{ import_id: string }>> {
  let listId: string | null = null;
  if (upload.listId !== undefined && upload.listId !== '') {
    const list = await findList(deps.db, account.id, upload.listId);
    if (list === undefined) return reject('notFound', { detail: 'list_id is not a list of this account' });
    if (list.optin === 'double' && !channelActive(account, 'email')) return reject('serviceInactive');
    const joins = await prepareJoins(deps.db, account.id, [list]);
    if (!joins.ok) return joins;
    listId = list.id;
  }
  const quotas = deps.quotas ?? DEFAULT_ACCOUNT_QUOTAS;
  const inFlight = await importsInFlight(deps.db, account.id);
  if (inFlight.imports >= quotas.maxImportsInFlight) {
    return quotaExceeded(`an account has at most ${quotas.maxImportsInFlight} imports running at once (HERALD_ACCOUNT_MAX_IMPORTS): wait for one to end`);
  }
  // Concurrent uploads each see the others' bytes so far: the in-flight cap bounds what they add together.
  const budget = quotas.maxUploadBytes - inFlight.bodyBytes;
  const id = deps.newId();
  const owner = `upload-${randomUUID()}`;
  await deps.commit.run((tx) => insertImport(tx, {
    id, accountId: account.id, listId, format: upload.format, owner, leaseUntil: deps.clock() + UPLOAD_LEASE_MS, now: deps.clock(), mode: upload.mode ?? 'live',
  }));
  try {
    let seq = 0;
    let stored = 0;
    let refused: Rejection | undefined;
    const chunks = textChunks(upload.body, upload.limitBytes, upload.charset);
    let next = await chunks.next();
    while (next.done !== true) {
      const { text: chunk, bytes } = next.value;
      stored += bytes;
      if (stored > budget) {
        refused = { code: 'quotaExceeded', detail: `an account stores at most ${quotas.maxUploadBytes} bytes of imports in flight (HERALD_ACCOUNT_MAX_UPLOAD_BYTES)` };
        break;
      }
      next = await chunks.next();
      if (seq === 0) refused = checkStart(upload.format, chunk, next.done === true);
      if (refused !== undefined) break;
      // Through the committer: on SQLite its WAL sync runs off the event loop, not in this request's turn.
      await deps.commit.run((tx) => appendChunk(tx, id, seq, chunk, bytes, deps.clock() + UPLOAD_LEASE_MS));
      seq += 1;
    }
    if (refused === undefined && seq === 0) refused = { code: 'importEmpty' };
    if (refused !== undefined) {
      // The rest of the body is left unread (the HTTP layer discards it after the answer).
      await chunks.return(undefined);
      await dropUpload(deps, id);
      return { ok: false, rejection: refused };
    }
    await deps.commit.run((tx) => markReceived(tx, id, deps.clock()));
  } catch (error) {
    await dropUpload(deps, id);
    if (error instanceof RejectionError) return { ok: false, rejection: error.rejection };
    throw error;
  }
  deps.wakeImports?.();
  return ok({ import_id: id });
}

/** How a runner's turn at an import ended. */
export type ImportRun = 'finished' | 'failed' | 'stopped' | 'lost';

interface Counts {
  /** Contacts the account may still create (its HERALD_ACCOUNT_MAX_CONTACTS quota). */
  room: number;
  rows: number;
  created: number;
  updated: number;
  rejected: number;
  errors: ImportError[];
}

/**
 * Reads an import's rows from the first not yet committed and commits them BATCH_ROWS
 * at a time, while `owner` holds the import and `keepGoing()` says so. Ends it
 * `finished`, or `failed` with a sentence: a broken body, a list deleted meanwhile, an
 * account that cannot pay for its confirmation emails, more than MAX_IMPORT_ROWS rows.
 */
export async function runImport(deps: KeyDeps, imp: ContactImport, owner: string, leaseMs: number, keepGoing: () => boolean): Promise<ImportRun> {
  const quotas = deps.quotas ?? DEFAULT_ACCOUNT_QUOTAS;
  const room = quotas.maxContacts - (await countContacts(deps.db, imp.accountId));
  const counts: Counts = { room, rows: imp.rows, created: imp.created, updated: imp.updated, rejected: imp.rejected, errors: [...imp.errors] };
  const end = async (failure: string | null): Promise<ImportRun> => ((await endRun(deps, imp, owner, failure)) ? (failure === null ? 'finished' : 'failed') : 'lost');
  let joins: ListJoin[] = [];
  if (imp.listId !== null) {
    const list = await findList(deps.db, imp.accountId, imp.listId);
    if (list === undefined) return end('The list was deleted during the import; the rows before were imported');
    const prepared = await prepareJoins(deps.db, imp.accountId, [list]);
    if (!prepared.ok) return end(`${WIRE_TEXTS[prepared.rejection.code]}: the list's confirmation emails cannot be sent from ${list.from?.email ?? 'its sender'}`);
    joins = prepared.value;
  }

  let batch: ImportRow[] = [];
  const commitBatch = async (): Promise<ImportRun | undefined> => {
    if (batch.length === 0) return undefined;
    const rows = batch;
    batch = [];
    return commitRows(deps, imp, owner, leaseMs, joins, rows, counts);
  };
  try {
    for await (const rows of importRows(imp.format, importChunks(deps.db, imp.id))) {
      for (const row of rows) {
        // Rows an earlier run committed are read again and skipped.
        if (row.row <= imp.rows) continue;
        if (row.row > MAX_IMPORT_ROWS) {
          const stopped = await commitBatch();
          return stopped ?? end(`The import has more than ${MAX_IMPORT_ROWS} rows: the first ${MAX_IMPORT_ROWS} were imported, the rest were not`);
        }
        batch.push(row);
        if (batch.length >= BATCH_ROWS) {
          const stopped = await commitBatch();
          if (stopped !== undefined) return stopped;
          if (!keepGoing()) return 'stopped';
          // A turn of the event loop between batches: requests and /healthz are answered
          // between them, never behind a whole import (SQLite runs on this thread).
          await nextTurn();
        }
      }
      await nextTurn();
    }
  } catch (error) {
    if (!(error instanceof MalformedImport)) throw error;
    const stopped = await commitBatch();
    return stopped ?? end(`${error.message.replace(/\.$/, '')}; the rows before it were imported`);
  }
  return (await commitBatch()) ?? end(null);
}

/**
 * Ends an import taken up more than `maxAttempts` times in a row without a committed
 * batch (its reading killed the process or failed each time); `quarantined` runs once
 * that is committed, before the body is dropped. False when `owner` no longer holds it.
 */
export async function quarantineImport(deps: KeyDeps, imp: ContactImport, owner: string, maxAttempts: number, quarantined: () => void): Promise<boolean> {
  const failure = `The import was taken up ${maxAttempts} times without finishing a batch (its reading stopped the process or failed each time), so it is not taken up again; the rows before were imported`;
  const ended = await deps.commit.run((tx) => endImport(tx, { importId: imp.id, owner, status: 'failed', failure, now: deps.clock() }));
  if (!ended) return false;
  quarantined();
  await dropBody(deps, imp.id);
  return true;
}

/** Ends the import `finished` (no failure) or `failed`, then drops its body; false when `owner` no longer holds it. */
async function endRun(deps: KeyDeps, imp: ContactImport, owner: string, failure: string | null): Promise<boolean> {
  const ended = await deps.commit.run((tx) => endImport(tx, { importId: imp.id, owner, status: failure === null ? 'finished' : 'failed', failure, now: deps.clock() }));
  if (ended) await dropBody(deps, imp.id);
  return ended;
}

/**
 * Deletes an import's stored body a chunk per unit of work, through the committer (on
 * SQLite its WAL sync runs off the event loop), the loop turning between chunks.
 */
async function dropBody(deps: KeyDeps, importId: string): Promise<void> {
  while (await deps.commit.run((tx) => dropFirstChunk(tx, importId))) await nextTurn();
}

/** Drops an upload that will not run (refused, cut short, abandoned) with its body. */
async function dropUpload(deps: KeyDeps, importId: string): Promise<void> {
  await dropBody(deps, importId);
  await deps.commit.run((tx) => deleteImport(tx, importId));
}

/**
 * The runner's housekeeping: uploads whose receiver died (nobody got their id) go, and
 * so do the bodies of imports that ended while theirs was being dropped.
 */
export async function clearLeftovers(deps: KeyDeps): Promise<void> {
  for (const id of await abandonedUploads(deps.db, deps.clock())) await dropUpload(deps, id);
  for (const id of await endedWithChunks(deps.db)) await dropBody(deps, id);
}

/** One batch in one unit of work, with the import's progress; undefined when it committed. */
async function commitRows(
  deps: KeyDeps, imp: ContactImport, owner: string, leaseMs: number, joins: readonly ListJoin[], rows: readonly ImportRow[], counts: Counts,
): Promise<ImportRun | undefined> {
  const now = deps.clock();
  const inputs = rows.flatMap((r) => ('input' in r ? [r.input] : []));
  const refused = rows.flatMap((r) => ('error' in r ? [{ row: r.row, message: r.error }] : []));
  const last = rows[rows.length - 1]?.row ?? counts.rows;
  const committed = await commitOrReject(deps.commit, async (tx) => {
    const upserted = await upsertContacts(tx, deps.newId, imp.accountId, inputs, now);
    const joined = await joinLists(tx, deps, imp.accountId, upserted.map((u) => u.contact), joins, { source: 'import', detail: { import_id: imp.id }, now, mode: imp.mode });
    const created = upserted.filter((u) => u.created).length;
    if (created > counts.room) throw new RejectionError({ code: 'quotaExceeded' });
    const next: Counts = {
      room: counts.room - created, rows: last, created: counts.created + created, updated: counts.updated + inputs.length - created, rejected: counts.rejected + refused.length,
      errors: [...counts.errors, ...refused].slice(0, MAX_IMPORT_ERRORS),
    };
    const held = await recordProgress(tx, { importId: imp.id, owner, ...next, leaseUntil: now + leaseMs, now });
    if (!held) throw new LeaseLost();
    return { next, joined };
  }).catch((error: unknown) => {
    if (error instanceof LeaseLost) return undefined;
    throw error;
  });
  if (committed === undefined) return 'lost';
  if (!committed.ok) {
    const first = rows[0]?.row ?? counts.rows + 1;
    const quotas = deps.quotas ?? DEFAULT_ACCOUNT_QUOTAS;
    const failure = committed.rejection.code === 'quotaExceeded'
      ? `${WIRE_TEXTS.quotaExceeded}: ${contactQuotaText(quotas.maxContacts)}, so rows ${first} to ${last} and the rest were not imported`
      : `${WIRE_TEXTS[committed.rejection.code]}: the confirmation emails of rows ${first} to ${last} could not be paid for, so those rows and the rest were not imported`;
    return (await endRun(deps, imp, owner, failure)) ? 'failed' : 'lost';
  }
  Object.assign(counts, committed.value.next);
  if (committed.value.joined.queued > 0) deps.wakeOutbox();
  if (committed.value.joined.dropped > 0) deps.wakeWebhooks?.();
  return undefined;
}

class LeaseLost extends Error {
  override name = 'LeaseLost';
}
