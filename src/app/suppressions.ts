import { Buffer } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Type, type Static } from '@sinclair/typebox';
import { csvLine } from '../domain/csv-line.ts';
import { parseAddress } from '../domain/email-address.ts';
import { isJsonObject, ownField } from '../domain/json-object.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { withStatementTimeout } from '../store/heavy-read.ts';
import { addSuppression, listSuppressions, nthSuppressedAddress, removeSuppression, type Suppression, type SuppressionReason } from '../store/suppressions.ts';
import type { AppDeps } from './deps.ts';
import { DEFAULT_HEAVY_READ_MS, withinReadLimit } from './heavy-reads.ts';

// The account's suppression list over the API: addresses herald will not send email
// to (a send to one is answered with a msgid, stored as `dropped`, not billed). Entries
// come from unsubscribes, hard bounces, complaints, and the account itself (`manual`).
// Addresses are kept lower-cased; every query is scoped by the account.

export const DEFAULT_SUPPRESSION_PAGE = 50;
export const MAX_SUPPRESSION_PAGE = 500;
/** Most addresses one POST may add. */
export const MAX_SUPPRESSIONS_PER_REQUEST = 1000;

export interface SuppressionView {
  readonly email: string;
  readonly reason: SuppressionReason;
  readonly msgid: string | null;
  readonly created_at: string;
}

export interface SuppressionPage {
  readonly data: readonly SuppressionView[];
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly next_cursor: string | null;
}

const view = (s: Suppression): SuppressionView => ({ email: s.address, reason: s.reason, msgid: s.messageId, created_at: new Date(s.createdAt).toISOString() });
const invalid = (detail: string) => reject('invalidField', { detail });

// The cursor is the last address of the page, base64url-encoded: opaque, and safe in a query string.
const encodeCursor = (address: string): string => Buffer.from(address, 'utf8').toString('base64url');
const decodeCursor = (cursor: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return undefined;
  const address = Buffer.from(cursor, 'base64url').toString('utf8');
  return encodeCursor(address) === cursor ? address : undefined;
};

const CURSOR_PROBLEM = 'must be the next_cursor of a previous page';

/** GET /v1/suppressions's query, declared once (checked by the route: http/input-validation.ts). */
/** Longest search text (`q`), an address's length. */
export const SUPPRESSION_SEARCH_MAX = 320;
const searchText = Type.Optional(Type.String({ maxLength: SUPPRESSION_SEARCH_MAX, errorMessage: `must be text of at most ${SUPPRESSION_SEARCH_MAX} characters`, description: 'Only addresses containing this text (case-insensitive)' }));

export const SuppressionListQuery = Type.Object({
  q: searchText,
  cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,400}$', errorMessage: CURSOR_PROBLEM, description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({
    minimum: 1, maximum: MAX_SUPPRESSION_PAGE, default: DEFAULT_SUPPRESSION_PAGE, errorMessage: `must be a whole number from 1 to ${MAX_SUPPRESSION_PAGE}`,
  })),
});
export type SuppressionListQuery = Static<typeof SuppressionListQuery>;

/** The checked query in the store's terms: the cursor decoded (one that was not made here is refused). */
interface PageQuery { after?: string; containing?: string; limit: number }

function refinePageQuery(query: SuppressionListQuery): Result<PageQuery> {
  const page: PageQuery = { limit: query.limit ?? DEFAULT_SUPPRESSION_PAGE };
  if (query.q !== undefined && query.q.trim() !== '') page.containing = query.q.trim();
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor);
    if (after === undefined) return invalid(`cursor ${CURSOR_PROBLEM}`);
    page.after = after;
  }
  return ok(page);
}

/** GET /v1/suppressions?q=&cursor=&limit= — the account's list in address order, only addresses containing `q` when given. */
export async function listAccountSuppressions(deps: AppDeps, accountId: string, query: SuppressionListQuery): Promise<Result<SuppressionPage>> {
  const page = refinePageQuery(query);
  if (!page.ok) return page;
  // One row more than asked tells whether another page exists.
  const rows = await listSuppressions(deps.db, accountId, { ...page.value, limit: page.value.limit + 1 });
  const shown = rows.slice(0, page.value.limit);
  const last = shown.at(-1);
  return ok({ data: shown.map(view), next_cursor: rows.length > page.value.limit && last !== undefined ? encodeCursor(last.address) : null });
}

/**
 * The addresses of a POST body: `{"email": "…"}` for one, `{"emails": ["…", …]}` for
 * up to MAX_SUPPRESSIONS_PER_REQUEST. Every malformed address is listed in the error,
 * as the send route lists its offending recipients.
 */
export function parseSuppressionRequest(body: unknown): Result<string[]> {
  if (!isJsonObject(body)) return reject('invalidRequest1');
  const one = ownField(body, 'email');
  const many = ownField(body, 'emails');
  if (one !== undefined && many !== undefined) return invalid('give email or emails, not both');
  let given: unknown[];
  if (many !== undefined) {
    if (!Array.isArray(many) || many.length > MAX_SUPPRESSIONS_PER_REQUEST) return invalid(`emails must be an array of at most ${MAX_SUPPRESSIONS_PER_REQUEST} addresses`);
    given = many;
  } else {
    given = one === undefined ? [] : [one];
  }
  if (given.length === 0 || given.some((e) => typeof e !== 'string' || e.trim() === '')) return reject('suppressionEmailMissing');
  const addresses = given as string[];
  const offending = addresses.filter((e) => parseAddress(e) === null);
  if (offending.length > 0) return reject('suppressionEmailWrongStructure', { offending: offending.map((email) => ({ email })) });
  return ok(addresses.map((e) => e.trim()));
}

/**
 * POST /v1/suppressions — adds each address with reason `manual`. An address already on
 * the list keeps its first reason, message and time; the answer shows each entry as
 * it now stands, in the order given (duplicates once).
 */
export async function addAccountSuppressions(deps: AppDeps, accountId: string, body: unknown): Promise<Result<{ data: SuppressionView[] }>> {
  const parsed = parseSuppressionRequest(body);
  if (!parsed.ok) return parsed;
  const addresses = [...new Set(parsed.value.map((a) => a.toLowerCase()))];
  const at = deps.clock();
  const entries = await deps.commit.run(async (tx) => {
    for (const address of addresses) await addSuppression(tx, { accountId, address, reason: 'manual', messageId: null, at });
    // Read back in one query per page of addresses, then put in the order given.
    const found = new Map<string, Suppression>();
    for (let i = 0; i < addresses.length; i += 500) {
      for (const s of await listSuppressions(tx, accountId, { among: addresses.slice(i, i + 500), limit: 500 })) found.set(s.address, s);
    }
    return addresses.flatMap((a) => found.get(a) ?? []);
  });
  return ok({ data: entries.map(view) });
}

/** DELETE /v1/suppressions/:email — herald may send to the address again. */
export async function removeAccountSuppression(deps: AppDeps, accountId: string, email: string): Promise<Result<'removed'>> {
  if (parseAddress(email) === null) return reject('suppressionEmailWrongStructure', { offending: [{ email }] });
  return (await removeSuppression(deps.db, accountId, email.trim())) ? ok('removed') : reject('notFound');
}

/** Rows read from the store at a time while exporting. */
export const EXPORT_BATCH = 1000;
/** Addresses one slice of a `?q=` export looks through at most, matching or not. */
export const EXPORT_SCAN = 20_000;
export const EXPORT_HEADER = ['email', 'reason', 'msgid', 'created_at'] as const;

/**
 * GET /v1/suppressions/export?q= — the whole list (or the addresses containing `q`) as
 * CSV lines, header first, read from the store a slice at a time as the answer is sent
 * (keyset by address, the event loop turning between slices). Each slice is one read
 * bounded by HERALD_HEAVY_READ_TIMEOUT_MS (docs/campaigns.md, "Heavy reads"): the first
 * is read before the answer starts, so past the limit it is a 503; a later slice past
 * it ends the answer cut short (the connection closes before the last chunk).
 */
export const SuppressionExportQuery = Type.Object({ q: searchText });
export type SuppressionExportQuery = Static<typeof SuppressionExportQuery>;

interface ExportSlice {
  readonly rows: readonly Suppression[];
  /** The address the next slice starts after; undefined: the list is done. */
  readonly next: string | undefined;
}

export async function exportAccountSuppressions(deps: AppDeps, accountId: string, rawQuery: SuppressionExportQuery): Promise<Result<AsyncIterable<string>>> {
  const query = refinePageQuery(rawQuery);
  if (!query.ok) return query;
  const { containing } = query.value;
  const limitMs = deps.heavyReadMs ?? DEFAULT_HEAVY_READ_MS;
  // A `q` slice looks through EXPORT_SCAN addresses at most, so a rare match costs no
  // one statement a scan of the whole list.
  const slice = (after: string | undefined): Promise<ExportSlice> => withStatementTimeout(deps.db, limitMs, async (executor) => {
    const upTo = containing === undefined ? undefined : await nthSuppressedAddress(executor, accountId, after, EXPORT_SCAN);
    const rows = await listSuppressions(executor, accountId, {
      ...(after === undefined ? {} : { after }), ...(upTo === undefined ? {} : { upTo }), ...(containing === undefined ? {} : { containing }), limit: EXPORT_BATCH,
    });
    return { rows, next: rows.length === EXPORT_BATCH ? rows.at(-1)?.address : upTo };
  });
  const first = await withinReadLimit(deps, () => slice(undefined));
  if (!first.ok) return first;
  const start = first.value;
  const text = (rows: readonly Suppression[]) => rows.map((r) => `${csvLine([r.address, r.reason, r.messageId, new Date(r.createdAt).toISOString()])}\r\n`).join('');
  async function* lines(): AsyncGenerator<string> {
    yield `${csvLine(EXPORT_HEADER)}\r\n`;
    let current = start;
    for (;;) {
      if (current.rows.length > 0) yield text(current.rows);
      if (current.next === undefined) return;
      await nextTurn();
      current = await slice(current.next);
    }
  }
  return ok(lines());
}
