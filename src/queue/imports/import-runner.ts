import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KeyDeps } from '../../app/api-keys.ts';
import { clearLeftovers, quarantineImport, runImport } from '../../app/contact-imports.ts';
import { claimImport, releaseAllImports, releaseImport } from '../../store/contact-imports.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';

// The background reader of contact imports: claims one running import at a time with
// a lease, commits its rows in batches (app/contact-imports.ts runImport), and polls
// for imports that a dead process left (their lease ran out, or its heartbeat stopped:
// the lease is under the process id, store/lease-takeover.ts) or that another process
// received (PostgreSQL: woken by NOTIFY). One import at a time per process keeps an
// import from taking more than one core; several processes share the work.
//
// Every claim counts an attempt in the store before the reading starts; an import
// taken up more than `maxAttempts` times in a row without committing a batch (its
// reading killed the process, or failed) is quarantined: ended `failed` with the
// reason, one log line, herald_jobs_quarantined_total{job="imports"}.

/** The channel API processes notify when an upload is ready. */
export const IMPORTS_WAKE = 'herald_imports';

export interface ImportRunnerOptions {
  /** How long a claim holds without progress before another runner may take the import. */
  readonly leaseMs: number;
  /** How often an idle runner looks for work it was not told about. */
  readonly pollMs: number;
  /** Claims in a row without a committed batch after which an import ends failed (HERALD_IMPORT_MAX_ATTEMPTS). */
  readonly maxAttempts: number;
  /** The owner of its leases: the process's heartbeat id, for the fast takeover (store/lease-takeover.ts); a random one when absent. */
  readonly owner?: string;
}

export const DEFAULT_IMPORT_RUNNER_OPTIONS: ImportRunnerOptions = { leaseMs: 60_000, pollMs: 5_000, maxAttempts: 3 };

export class ImportRunner {
  readonly #deps: KeyDeps;
  readonly #capabilities: DialectCapabilities;
  readonly #logger: Logger;
  readonly #options: ImportRunnerOptions;
  readonly #owner: string;
  #running: Promise<void> | undefined;
  #again = false;
  #stopping = false;
  #timer: NodeJS.Timeout | undefined;
  #started: Promise<void> | undefined;

  constructor(deps: KeyDeps, capabilities: DialectCapabilities, logger: Logger, options: ImportRunnerOptions = DEFAULT_IMPORT_RUNNER_OPTIONS) {
    this.#deps = deps;
    this.#capabilities = capabilities;
    this.#logger = logger;
    this.#options = options;
    this.#owner = options.owner ?? `imports-${randomUUID()}`;
  }

  /** Starts polling; on embedded SQLite, leases found now belonged to a previous run and are let go at once. */
  start(): void {
    this.#started = (this.#capabilities.singleServerProcess ? releaseAllImports(this.#deps.db) : Promise.resolve()).then(() => this.wake());
    this.#started.catch((error: unknown) => this.#logger.error({ err: error }, 'import leases not released'));
  }

  /** Looks for work now (an upload finished). */
  wake(): void {
    if (this.#stopping) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#running = this.#work().finally(() => {
      this.#running = undefined;
      if (this.#stopping) return;
      if (this.#again) {
        this.#again = false;
        this.wake();
      } else {
        this.#timer = setTimeout(() => this.wake(), this.#options.pollMs);
        this.#timer.unref();
      }
    });
  }

  /** Resolves when no import is being read (tests: after an upload, until it ends). */
  async drain(): Promise<void> {
    await this.#started;
    if (this.#running === undefined) this.wake();
    // A wake during a run starts another run when it ends: wait for that one too.
    while (this.#running !== undefined) await this.#running;
  }

  /** Stops after the batch in hand; the import being read is let go, for the next start to resume. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#started?.catch(() => {});
    await this.#running;
  }

  async #work(): Promise<void> {
    try {
      await clearLeftovers(this.#deps);
      for (;;) {
        if (this.#stopping) return;
        const imp = await claimImport(this.#deps.db, this.#capabilities, this.#owner, this.#deps.clock(), this.#options.leaseMs);
        if (imp === undefined) return;
        if (imp.attempts > this.#options.maxAttempts) {
          await quarantineImport(this.#deps, imp, this.#owner, this.#options.maxAttempts, () => {
            this.#logger.warn({ importId: imp.id, accountId: imp.accountId, attempts: imp.attempts - 1 }, 'contact import quarantined: ended failed after too many attempts');
            this.#deps.metrics.jobQuarantined('imports');
          });
          continue;
        }
        try {
          const outcome = await runImport(this.#deps, imp, this.#owner, this.#options.leaseMs, () => !this.#stopping);
          if (outcome === 'stopped') await releaseImport(this.#deps.db, imp.id, this.#owner);
          if (outcome === 'lost') this.#logger.warn({ importId: imp.id }, 'import taken over by another runner');
        } catch (error) {
          // A bug or a store that went away: the attempt stays counted, and the next claim
          // (now, or after the store is back) resumes after the last committed batch.
          this.#logger.error({ err: error, importId: imp.id }, 'contact import failed unexpectedly');
          this.#deps.metrics.unexpectedError('imports');
          await releaseImport(this.#deps.db, imp.id, this.#owner, 'counted');
        }
      }
    } catch (error) {
      // The store failed between imports: the next poll looks again.
      this.#logger.error({ err: error }, 'contact import runner failed unexpectedly');
      this.#deps.metrics.unexpectedError('imports');
    }
  }
}
