import type { KeyMode } from '../domain/key-mode.ts';
import { reject, type Result } from '../domain/result.ts';
import type { Db, Tx } from '../store/database.ts';
import type { Committer } from '../store/group-commit.ts';
import { claimIdempotencyKey, findIdempotencyKey, purgeExpiredIdempotencyKeys, recordIdempotentAnswer, type StoredAnswer } from '../store/idempotency-keys.ts';
import type { AppDeps } from './deps.ts';
import type { IdempotencyKeysInProcess } from './idempotency-keys-in-process.ts';

// Idempotency keys of the send operations (README "Idempotent sends"). A send given a
// key runs with a committer that claims the key at the start of the send's own unit of
// work and stores the answer at its end, so the key exists exactly when the send does.
// What the send's unit of work returns IS its 200 answer (each send use case builds its
// answer inside the transaction for this reason), and a send commits once.
//
// Who answers what:
//  - a stored, unexpired key: its answer again (same fingerprint) or 422 (another request);
//  - a key in flight in this process: 409, before any work;
//  - a key in flight in another process (PostgreSQL): both run; the later claim waits on
//    the primary key for the first transaction, then finds the key taken, rolls its own
//    send back (nothing billed) and answers the first one's answer (or 422);
//  - a refused send (4xx) rolls its claim back with it: the key stays free.
// Test keys (the sandbox) have a key space of their own, so a key tried in test mode never
// answers a live send: their keys are stored behind TEST_KEY_SPACE, which no key can hold.

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
/** Before a test-mode key as stored: a tab, outside the printable characters a key is made of. */
const TEST_KEY_SPACE = 'test\t';
/** A keyed send's answer: every send answers 200 when it commits. */
const ANSWER_STATUS = 200;
/** Expired keys are purged at most this often per process, this many at a time; a full batch lets the next purge run at once. */
const PURGE_EVERY_MS = 10_000;
const PURGE_BATCH = 500;

export interface IdempotentRequest {
  readonly accountId: string;
  /** The caller's key mode: live and test keys of one account have separate key spaces. */
  readonly mode: KeyMode;
  /** The Idempotency-Key header, already checked (1–255 printable characters). */
  readonly key: string;
  /** SHA-256 of what makes the request this request (method, path, body). */
  readonly fingerprint: string;
}

export type IdempotentOutcome<T> =
  /** The send ran now (accepted or refused), or the key was refused (409, 422). */
  | { readonly kind: 'answered'; readonly result: Result<T> }
  /** The key's first answer, as it was given. */
  | { readonly kind: 'replayed'; readonly status: number; readonly answer: string };

/** The key was taken by a send that committed first (another process's, on PostgreSQL). */
class IdempotencyKeyTaken extends Error {
  constructor() {
    super('the idempotency key was taken by another send');
    this.name = 'IdempotencyKeyTaken';
  }
}

/**
 * Runs `send` under `request`'s key: answers a replay, 422 or 409 without sending, or
 * sends with a committer that writes the key in the send's transaction. `send` gets
 * `deps` with that committer.
 */
export async function idempotentSend<D extends AppDeps, T>(
  deps: D,
  request: IdempotentRequest,
  send: (deps: D) => Promise<Result<T>>,
): Promise<IdempotentOutcome<T>> {
  const keys = deps.idempotencyKeys;
  const key = request.mode === 'test' ? `${TEST_KEY_SPACE}${request.key}` : request.key;
  const slot = `${request.accountId}\n${key}`;
  if (keys.inFlight.has(slot)) return { kind: 'answered', result: reject('idempotencyKeyInFlight') };
  keys.inFlight.add(slot);
  try {
    const stored = await findIdempotencyKey(deps.db, request.accountId, key, deps.clock());
    if (stored !== undefined) return storedOutcome(stored, request);
    try {
      return { kind: 'answered', result: await send({ ...deps, commit: keyedCommitter(deps, request, key) }) };
    } catch (error) {
      if (!(error instanceof IdempotencyKeyTaken)) throw error;
      const first = await findIdempotencyKey(deps.db, request.accountId, key, deps.clock());
      // Gone already (expired in between): as good as still in flight; a retry sends.
      return first === undefined ? { kind: 'answered', result: reject('idempotencyKeyInFlight') } : storedOutcome(first, request);
    }
  } finally {
    keys.inFlight.delete(slot);
  }
}

function storedOutcome<T>(stored: StoredAnswer, request: IdempotentRequest): IdempotentOutcome<T> {
  if (stored.fingerprint !== request.fingerprint) return { kind: 'answered', result: reject('idempotencyKeyReused') };
  return { kind: 'replayed', status: stored.status, answer: stored.answer };
}

/** deps.commit, with the key claimed first and the answer (what the unit returns) stored last, in the same unit of work. */
function keyedCommitter(deps: AppDeps, request: IdempotentRequest, key: string): Committer {
  let committed = false;
  return {
    run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      // A second commit would leave the key naming only the first: a send that needs two is a bug here.
      if (committed) throw new Error('an idempotent send commits once');
      committed = true;
      const now = deps.clock();
      return deps.commit.run(async (tx) => {
        const claim = { accountId: request.accountId, key, fingerprint: request.fingerprint, now, expiresAt: now + IDEMPOTENCY_KEY_TTL_MS };
        if (!(await claimIdempotencyKey(tx, claim))) throw new IdempotencyKeyTaken();
        const answer = await work(tx);
        await recordIdempotentAnswer(tx, request.accountId, key, ANSWER_STATUS, JSON.stringify(answer));
        return answer;
      });
    },
  };
}

/**
 * Deletes a batch of expired keys when this process has not done so lately (called by
 * keyed sends, so the purge keeps pace with what makes keys); returns how many, or
 * undefined when it was not due.
 */
export async function purgeExpiredKeysIfDue(deps: Pick<AppDeps, 'db' | 'clock' | 'idempotencyKeys'>): Promise<number | undefined> {
  const keys = deps.idempotencyKeys;
  const now = deps.clock();
  if (now < keys.nextPurgeAt) return undefined;
  keys.nextPurgeAt = now + PURGE_EVERY_MS;
  const purged = await purgeExpiredIdempotencyKeys(deps.db, now, PURGE_BATCH);
  if (purged === PURGE_BATCH) keys.nextPurgeAt = 0;
  return purged;
}
