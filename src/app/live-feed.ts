import type { Logger } from 'pino';
import type { Executor } from '../store/database.ts';
import {
  LIVE_SOURCES, lastLiveId, liveSessionIds, readActiveRows, readLiveRows,
  type ActiveSource, type LiveEvent, type LiveSource,
} from '../store/live-events.ts';
import type { Clock } from './deps.ts';

// The account's events as they happen, for the web application's open pages
// (GET /v1/events/stream, docs/live-updates.md). One feed per process: a turn every
// pollMs reads each followed table once after its cursor, for every open stream at
// once, and hands each row to the streams of its account only. Rows written by any
// process are seen, since the store is read, not an in-process emitter.
//
// Ids are UUIDv7, made before their transaction commits: a row can become visible
// after a greater id did. Each cursor therefore lags `lookbackTurns` turns behind the
// greatest id read, and the ids already handed out in that window are remembered, so a
// late row is still seen once and an early one never twice.

export type { LiveEvent } from '../store/live-events.ts';

export interface LiveFeedOptions {
  readonly pollMs: number;
  /** Open streams of one user in this process; past it a new one is refused. */
  readonly perUser: number;
  /** Open streams of this process, all users. */
  readonly perProcess: number;
  /** Rows read per table and turn: a turn's work is bounded whatever was written. */
  readonly rowsPerRead: number;
  readonly lookbackTurns: number;
  /** A stream's session is checked this often (turns): a sign-out anywhere ends it. */
  readonly sessionCheckTurns: number;
  /** A comment on a stream that said nothing for this long keeps proxies from closing it. */
  readonly heartbeatMs: number;
}

export const DEFAULT_LIVE_FEED_OPTIONS: LiveFeedOptions = {
  pollMs: 500, perUser: 6, perProcess: 1000, rowsPerRead: 500, lookbackTurns: 4, sessionCheckTurns: 4, heartbeatMs: 15_000,
};

/** One open stream, as the HTTP layer writes it. */
export interface LiveSubscriber {
  readonly accountId: string;
  readonly userId: string;
  readonly sessionId: string;
  /** Writes one event; false when the reader is too far behind (the stream is then closed). */
  send(event: LiveEvent): boolean;
  /** A comment line, to keep the connection open. */
  heartbeat(): boolean;
  /** Ends the stream: its session ended, its reader fell behind, or the process stops. */
  close(reason: LiveCloseReason): void;
}

export type LiveCloseReason = 'session-ended' | 'too-slow' | 'stopping';

export type LiveRefusal = 'perUser' | 'perProcess';

export interface LiveFeedDeps {
  readonly db: Executor;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A session ends after this long without a request (AuthSettings.sessionIdleMs). */
  readonly sessionIdleMs: number;
}

interface Cursor {
  /** The greatest id read at each of the last turns, oldest first; reads start after the first. */
  readonly window: string[];
  /** Ids handed out that the window still covers. */
  readonly seen: Set<string>;
}

interface Entry {
  readonly subscriber: LiveSubscriber;
  lastWriteAt: number;
}

const ACTIVE_SOURCES: readonly ActiveSource[] = ['contact_imports', 'campaigns'];

export class LiveFeed {
  readonly options: LiveFeedOptions;
  readonly #deps: LiveFeedDeps;
  readonly #byAccount = new Map<string, Set<Entry>>();
  #size = 0;
  #cursors: Map<LiveSource, Cursor> | undefined;
  /** updated_at of each active import and campaign at the last turn, and the greatest id seen. */
  readonly #active = new Map<ActiveSource, { readonly known: Map<string, number>; readonly after: string }>();
  #turns = 0;
  #running: Promise<void> | undefined;

  constructor(deps: LiveFeedDeps, options: Partial<LiveFeedOptions> = {}) {
    this.#deps = deps;
    this.options = { ...DEFAULT_LIVE_FEED_OPTIONS, ...options };
  }

  /** Open streams in this process. */
  get size(): number {
    return this.#size;
  }

  /** Adds a stream, or says which bound refuses it; the returned function removes it. */
  open(subscriber: LiveSubscriber): { ok: true; remove: () => void } | { ok: false; refusal: LiveRefusal } {
    if (this.#size >= this.options.perProcess) return { ok: false, refusal: 'perProcess' };
    let ofUser = 0;
    for (const entry of this.#byAccount.get(subscriber.accountId) ?? []) if (entry.subscriber.userId === subscriber.userId) ofUser += 1;
    if (ofUser >= this.options.perUser) return { ok: false, refusal: 'perUser' };
    const entry: Entry = { subscriber, lastWriteAt: this.#deps.clock() };
    const streams = this.#byAccount.get(subscriber.accountId) ?? new Set<Entry>();
    streams.add(entry);
    this.#byAccount.set(subscriber.accountId, streams);
    this.#size += 1;
    let removed = false;
    return {
      ok: true,
      remove: () => {
        if (removed) return;
        removed = true;
        streams.delete(entry);
        if (streams.size === 0 && this.#byAccount.get(subscriber.accountId) === streams) this.#byAccount.delete(subscriber.accountId);
        this.#size -= 1;
      },
    };
  }

  /** One turn: new rows to their accounts' streams, sessions checked, heartbeats. Nothing is read while no stream is open. */
  turn(): Promise<void> {
    // One turn at a time: a caller arriving during one waits for it rather than reading the same rows.
    this.#running ??= this.#turn().finally(() => { this.#running = undefined; });
    return this.#running;
  }

  async #turn(): Promise<void> {
    if (this.#size === 0) {
      // Started afresh when a stream opens: what happened while nobody watched is not replayed.
      this.#cursors = undefined;
      this.#active.clear();
      return;
    }
    this.#turns += 1;
    const cursors = this.#cursors ?? await this.#startCursors();
    this.#cursors = cursors;
    for (const source of LIVE_SOURCES) await this.#follow(source, cursors.get(source) as Cursor);
    for (const source of ACTIVE_SOURCES) await this.#followActive(source);
    if (this.#turns % this.options.sessionCheckTurns === 0) await this.#closeEndedSessions();
    this.#heartbeats();
  }

  /** Ends every stream (the process stops). */
  closeAll(): void {
    for (const streams of [...this.#byAccount.values()]) for (const entry of [...streams]) entry.subscriber.close('stopping');
  }

  async #startCursors(): Promise<Map<LiveSource, Cursor>> {
    const cursors = new Map<LiveSource, Cursor>();
    for (const source of LIVE_SOURCES) {
      const last = await lastLiveId(this.#deps.db, source);
      cursors.set(source, { window: Array.from({ length: this.options.lookbackTurns }, () => last), seen: new Set() });
    }
    return cursors;
  }

  async #follow(source: LiveSource, cursor: Cursor): Promise<void> {
    const rows = await readLiveRows(this.#deps.db, source, cursor.window[0] as string, this.options.rowsPerRead);
    let greatest = cursor.window[cursor.window.length - 1] as string;
    for (const row of rows) {
      if (row.id > greatest) greatest = row.id;
      if (cursor.seen.has(row.id)) continue;
      cursor.seen.add(row.id);
      this.#deliver(row.accountId, row.event);
    }
    if (rows.length === this.options.rowsPerRead) {
      // A full page: more rows wait than a turn reads. Catch up from the last one read, with no look-back.
      cursor.window.fill(greatest);
    } else {
      cursor.window.shift();
      cursor.window.push(greatest);
    }
    const floor = cursor.window[0] as string;
    for (const id of cursor.seen) if (id <= floor) cursor.seen.delete(id);
  }

  async #followActive(source: ActiveSource): Promise<void> {
    const last = this.#active.get(source);
    // The first read only learns what is active: an import running before the feed started is no news yet.
    const after = last?.after ?? await lastLiveId(this.#deps.db, source);
    const rows = await readActiveRows(this.#deps.db, source, [...(last?.known.keys() ?? [])], after, this.options.rowsPerRead);
    const known = new Map<string, number>();
    let greatest = after;
    for (const row of rows) {
      if (last !== undefined && last.known.get(row.id) !== row.updatedAt) this.#deliver(row.accountId, row.event);
      if (row.active) known.set(row.id, row.updatedAt);
      if (row.id > greatest) greatest = row.id;
    }
    this.#active.set(source, { known, after: greatest });
  }

  #deliver(accountId: string, event: LiveEvent): void {
    const streams = this.#byAccount.get(accountId);
    if (streams === undefined) return;
    const now = this.#deps.clock();
    for (const entry of [...streams]) {
      if (entry.subscriber.send(event)) entry.lastWriteAt = now;
      else entry.subscriber.close('too-slow');
    }
  }

  async #closeEndedSessions(): Promise<void> {
    const entries = [...this.#byAccount.values()].flatMap((streams) => [...streams]);
    const ids = [...new Set(entries.map((entry) => entry.subscriber.sessionId))];
    const live = new Set<string>();
    // Bounded statements: a few hundred ids each.
    for (let i = 0; i < ids.length; i += 500) {
      for (const id of await liveSessionIds(this.#deps.db, ids.slice(i, i + 500), this.#deps.clock(), this.#deps.sessionIdleMs)) live.add(id);
    }
    for (const entry of entries) if (!live.has(entry.subscriber.sessionId)) entry.subscriber.close('session-ended');
  }

  #heartbeats(): void {
    const now = this.#deps.clock();
    for (const streams of [...this.#byAccount.values()]) {
      for (const entry of [...streams]) {
        if (now - entry.lastWriteAt < this.options.heartbeatMs) continue;
        if (entry.subscriber.heartbeat()) entry.lastWriteAt = now;
        else entry.subscriber.close('too-slow');
      }
    }
  }
}
