import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Role } from '../roles.ts';
import type { Db } from '../store/database.ts';
import { deleteProcess, deleteProcessesSeenBefore, insertProcess, touchProcess } from '../store/processes.ts';

// Every process says it is alive: a row at start, its last_seen_at refreshed every
// HEARTBEAT_MS, removed on a clean stop. The operator's service health lists the
// processes seen in the last hour; one not seen for three beats has stopped.

export const HEARTBEAT_MS = 5000;
/** Rows of processes gone this long are removed by the next process that starts. */
const FORGET_AFTER_MS = 24 * 3600 * 1000;

export class ProcessHeartbeat {
  readonly #deps: { readonly db: Db; readonly clock: () => number; readonly newId: () => string; readonly logger: Logger };
  readonly #role: Role;
  readonly #id: string;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> = Promise.resolve();

  constructor(deps: { readonly db: Db; readonly clock: () => number; readonly newId: () => string; readonly logger: Logger }, role: Role) {
    this.#deps = deps;
    this.#role = role;
    this.#id = deps.newId();
  }

  async start(): Promise<void> {
    const now = this.#deps.clock();
    await deleteProcessesSeenBefore(this.#deps.db, now - FORGET_AFTER_MS);
    await insertProcess(this.#deps.db, { id: this.#id, role: this.#role, pid: process.pid, host: hostname(), startedAt: now, lastSeenAt: now });
    this.#timer = setInterval(() => {
      this.#beating = touchProcess(this.#deps.db, this.#id, this.#deps.clock())
        .catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'heartbeat not recorded'));
    }, HEARTBEAT_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beating;
    await deleteProcess(this.#deps.db, this.#id).catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'heartbeat row not removed'));
  }
}
