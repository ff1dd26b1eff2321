import type { Logger } from 'pino';
import type { KeyDeps } from '../../app/api-keys.ts';
import { clearLeftovers, quarantineImport, runImport } from '../../app/contact-imports.ts';
import type { ContactImport } from '../../store/contact-imports.ts';
import { claimImport, releaseAllImports, releaseImport } from './claim.ts';
import { LeaseLoop } from '../lease-loop.ts';
import { oneAtATimeLoop, OneAtATimeQueue, type OneAtATimeOptions } from '../one-at-a-time.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';

// The background reader of contact imports, a queue of the shared lease loop
// (queue/lease-loop.ts): claims one running import at a time with a lease (claim.ts),
// commits its rows in batches (app/contact-imports.ts runImport), and polls for
// imports that a dead process left (their lease ran out, or its heartbeat stopped:
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

/** leaseMs: how long a claim holds without progress before another runner may take the import; pollMs: how often an idle runner looks for work it was not told about. */
export interface ImportRunnerOptions extends OneAtATimeOptions {
  /** Claims in a row without a committed batch after which an import ends failed (HERALD_IMPORT_MAX_ATTEMPTS). */
  readonly maxAttempts: number;
}

export const DEFAULT_IMPORT_RUNNER_OPTIONS: ImportRunnerOptions = { leaseMs: 60_000, pollMs: 5_000, maxAttempts: 3 };

export class ImportRunner extends LeaseLoop<'imports', ContactImport> {
  constructor(deps: KeyDeps, capabilities: DialectCapabilities, logger: Logger, options: ImportRunnerOptions = DEFAULT_IMPORT_RUNNER_OPTIONS) {
    // One import at a time per process: its reading takes no more than one core.
    super(...oneAtATimeLoop(new ImportQueue('imports', deps, capabilities, logger, options)));
  }
}

/** What the loop asks of the contact imports: the next running one (quarantining those taken up too often), and its reading. */
class ImportQueue extends OneAtATimeQueue<'imports', ContactImport, ImportRunnerOptions> {
  /** Abandoned uploads and bodies of ended imports are dropped once per round of claims (before the first, after one found nothing). */
  #clearLeftovers = true;

  releaseAllLeases(): Promise<number> {
    return releaseAllImports(this.deps.db);
  }

  async claim(_lane: 'imports', limit: number): Promise<readonly ContactImport[]> {
    if (limit === 0 || this.stopped) return [];
    try {
      if (this.#clearLeftovers) await clearLeftovers(this.deps);
      this.#clearLeftovers = false;
      for (;;) {
        const imp = await claimImport(this.deps.db, this.capabilities, this.owner, this.deps.clock(), this.options.leaseMs);
        if (imp === undefined) {
          this.#clearLeftovers = true;
          return [];
        }
        if (imp.attempts <= this.options.maxAttempts) return [imp];
        await quarantineImport(this.deps, imp, this.owner, this.options.maxAttempts, () => {
          this.logger.warn({ importId: imp.id, accountId: imp.accountId, attempts: imp.attempts - 1 }, 'contact import quarantined: ended failed after too many attempts');
          this.deps.metrics.jobQuarantined('imports');
        });
      }
    } catch (error) {
      // The store failed between imports: the next poll (or wake) looks again.
      this.#clearLeftovers = true;
      this.logger.error({ err: error }, 'contact import runner failed unexpectedly');
      this.deps.metrics.unexpectedError('imports');
      return [];
    }
  }

  async deliver(imp: ContactImport): Promise<void> {
    try {
      const outcome = await runImport(this.deps, imp, this.owner, this.options.leaseMs, () => !this.stopped);
      if (outcome === 'stopped') await releaseImport(this.deps.db, imp.id, this.owner);
      if (outcome === 'lost') this.logger.warn({ importId: imp.id }, 'import taken over by another runner');
    } catch (error) {
      // A bug or a store that went away: the attempt stays counted, and the next claim
      // (now, or after the store is back) resumes after the last committed batch.
      this.logger.error({ err: error, importId: imp.id }, 'contact import failed unexpectedly');
      this.deps.metrics.unexpectedError('imports');
      await releaseImport(this.deps.db, imp.id, this.owner, 'counted').catch((release: unknown) => {
        // The store is away: the lease runs out and the import is taken up again then.
        this.logger.error({ err: release }, 'contact import runner failed unexpectedly');
        this.deps.metrics.unexpectedError('imports');
      });
    }
  }
}
