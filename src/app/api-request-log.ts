import type { Logger } from 'pino';
import { ok, reject, type Result } from '../domain/result.ts';
import { findApiKey } from '../store/api-keys.ts';
import { countApiRequests, insertApiRequests, listApiRequests, purgeApiRequests, type ApiRequestEntry } from '../store/api-requests.ts';
import type { AppDeps } from './deps.ts';

// The API requests log per key (issue 24; as Resend shows it): method, path, status,
// duration and request id of every /v1 request a key made. Written off the send path:
// each answered request adds an entry to this process's buffer, written in one batch a
// second by the periodic job `api-requests-flush` (queue/jobs.ts; one unit of work through
// the committer, so on SQLite it joins the group commit) — a crash loses at most that
// second of log, never a send's time. The buffer
// holds MAX_BUFFERED entries; past that, entries are dropped and counted in a warning
// rather than held in memory. Entries are kept API_REQUEST_LOG_DAYS: the delivering
// processes purge older ones every API_REQUEST_PURGE_MS (queue/jobs.ts `api-requests-purge`).

export const API_REQUEST_LOG_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;
export const API_REQUEST_FLUSH_MS = 1000;
const FLUSH_AT = 500;
const MAX_BUFFERED = 10_000;
export const API_REQUEST_PURGE_MS = 10 * 60_000;
const PURGE_BATCH = 1000;
/** Longest path kept (a path longer than this is cut: the log is for reading, not replay). */
const PATH_MAX = 500;

export type ApiRequestLogDeps = Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId'>;

/** What one answered request leaves in the log. */
export interface AnsweredRequest {
  readonly accountId: string;
  readonly keyId: string;
  readonly method: string;
  /** The URL as asked; its query is not kept (it may name recipients). */
  readonly url: string;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
}

export class ApiRequestLog {
  #buffer: ApiRequestEntry[] = [];
  #dropped = 0;
  #writing: Promise<void> = Promise.resolve();
  readonly #deps: ApiRequestLogDeps;
  readonly #logger: Logger | undefined;

  constructor(deps: ApiRequestLogDeps, logger: Logger | undefined) {
    this.#deps = deps;
    this.#logger = logger;
  }

  record(request: AnsweredRequest): void {
    if (this.#buffer.length >= MAX_BUFFERED) {
      this.#dropped += 1;
      return;
    }
    const path = request.url.split('?', 1)[0] ?? '';
    this.#buffer.push({
      id: this.#deps.newId(), accountId: request.accountId, keyId: request.keyId, method: request.method, path: path.slice(0, PATH_MAX),
      status: request.status, durationMs: Math.max(0, Math.round(request.durationMs)), requestId: request.requestId, createdAt: this.#deps.clock(),
    });
    if (this.#buffer.length >= FLUSH_AT) void this.flush();
  }

  /** Writes what is buffered (after any write under way): the job's turn, a read of the log, and the last write at shutdown. */
  flush(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  async #write(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    const dropped = this.#dropped;
    this.#dropped = 0;
    if (dropped > 0) this.#logger?.warn({ dropped }, 'API request log buffer full: entries dropped');
    if (batch.length === 0) return;
    try {
      await this.#deps.commit.run((tx) => insertApiRequests(tx, batch));
    } catch (error) {
      // A log is not worth failing for: the batch is lost, and said so.
      this.#logger?.warn({ err: error, entries: batch.length }, 'API request log not written');
    }
  }
}

/** The periodic job: deletes the entries older than API_REQUEST_LOG_DAYS, PURGE_BATCH a statement; how many went. */
export async function purgeOldApiRequests(deps: Pick<AppDeps, 'db' | 'clock'>, signal?: AbortSignal): Promise<number> {
  const before = deps.clock() - API_REQUEST_LOG_DAYS * DAY_MS;
  let total = 0;
  let purged = PURGE_BATCH;
  while (purged === PURGE_BATCH && signal?.aborted !== true) {
    purged = await purgeApiRequests(deps.db, before, PURGE_BATCH);
    total += purged;
  }
  return total;
}

/** One entry of GET /v1/api-keys/:keyId/requests. */
export interface ApiRequestView {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly request_id: string;
  readonly created_at: string;
}

export interface ApiRequestPage {
  readonly data: readonly ApiRequestView[];
  readonly next_cursor: string | null;
  /** How many the key made in the kept period, at most the cap; `total_capped` when more. */
  readonly total: number;
  readonly total_capped: boolean;
}

const CURSOR = /^([0-9]{1,15})_([0-9a-f-]{36})$/;
const COUNT_CAP = 10_000;

/**
 * GET /v1/api-keys/:keyId/requests — the requests one of the account's keys made, newest
 * first; another account's key is notFound. This process's buffer is written first, so
 * a request just made shows.
 */
export async function keyRequests(
  deps: ApiRequestLogDeps, log: ApiRequestLog, accountId: string, keyId: string, query: { readonly cursor?: string; readonly limit?: number },
): Promise<Result<ApiRequestPage>> {
  const key = await findApiKey(deps.db, keyId);
  if (key === undefined || key.accountId !== accountId) return reject('notFound');
  let after: { createdAt: number; id: string } | undefined;
  if (query.cursor !== undefined) {
    const parts = CURSOR.exec(query.cursor);
    if (parts === null) return reject('invalidField', { detail: 'cursor must be the next_cursor of a previous page' });
    after = { createdAt: Number(parts[1]), id: parts[2] ?? '' };
  }
  await log.flush();
  const limit = query.limit ?? 50;
  const [rows, total] = await Promise.all([
    listApiRequests(deps.db, keyId, { ...(after === undefined ? {} : { after }), limit: limit + 1 }),
    countApiRequests(deps.db, keyId, COUNT_CAP),
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return ok({
    data: page.map((r) => ({
      id: r.id, method: r.method, path: r.path, status: r.status, duration_ms: r.durationMs, request_id: r.requestId, created_at: new Date(r.createdAt).toISOString(),
    })),
    next_cursor: rows.length > limit && last !== undefined ? `${last.createdAt}_${last.id}` : null,
    total: total.count,
    total_capped: total.capped,
  });
}
