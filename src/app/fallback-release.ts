import type { SmsPayload } from '../domain/outbound.ts';
import { suppressedAmong } from '../store/suppressions.ts';
import { refundWithEntry } from '../store/accounts.ts';
import type { Tx } from '../store/database.ts';
import {
  dueLegs, markSendInChain, postponeLeg, previousAnswered, settleLeg, waitingLegs, waitingLegsAfter, type DecidedLeg, type FallbackLeg, type LegPosition,
} from '../store/fallback-legs.ts';
import { optedOutAmong } from '../store/consent-ledger.ts';
import { insertSend, type SendOptions } from '../store/messages.ts';
import { commitOrReject } from './commit-or-reject.ts';
import type { AppDeps } from './deps.ts';

// The fallback job's turn (queue/jobs.ts `fallback`; docs/fallback.md): the waiting legs
// whose previous message has its answer, or whose time is up. Delivered: the leg is
// cancelled and its reservation refunded. Failed, bounced, dropped or late: the leg is
// released — its message inserted through the ordinary send path with the cost reserved
// at acceptance, so a failure before it leaves refunds it as any message's. Each leg is
// one unit of work whose first write is conditioned on the leg still waiting: two
// processes never release one leg twice, and a leg not yet decided survives a restart.

/** How often the job looks: a leg goes at most about this long after its time. */
export const FALLBACK_TURN_MS = 1000;
/** Due legs decided in one turn; more wait for the next (a turn's work is bounded). */
export const FALLBACK_TURN_LIMIT = 200;
/**
 * Waiting legs a turn looks at for an answer before their time (delivered: refund now;
 * failed: release now), going on from where the last turn stopped. Measured with 100,000
 * waiting: reading them all each second took 59 ms on SQLite (the event loop held) and
 * 80 ms and more on PostgreSQL; a turn with a slice of 1,000 takes 3 ms on SQLite and
 * 8–11 ms on PostgreSQL. Past 1,000 waiting, a leg is looked at every waiting/1,000
 * seconds; a due leg is always decided on time, by its previous message's status.
 */
export const FALLBACK_SCAN_SLICE = 1000;

export type FallbackDeps = Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId' | 'wakeOutbox' | 'wakeWebhooks'>;

export interface FallbackTurn {
  readonly released: number;
  readonly cancelled: number;
}

/** Where the scan of waiting legs goes on at the next turn: one per process, kept by its job (undefined: from the first). */
export interface FallbackScan {
  after?: LegPosition;
}

export async function releaseFallbackLegs(deps: FallbackDeps, signal?: AbortSignal, scan: FallbackScan = {}): Promise<FallbackTurn> {
  const now = deps.clock();
  const due = await dueLegs(deps.db, now, FALLBACK_TURN_LIMIT);
  const slice = await waitingLegsAfter(deps.db, scan.after, FALLBACK_SCAN_SLICE);
  const last = slice.at(-1);
  scan.after = slice.length < FALLBACK_SCAN_SLICE || last === undefined ? undefined : { dueAt: last.dueAt, id: last.id };
  const taken = new Set(due.map((d) => d.leg.id));
  const answered = await waitingLegs(deps.db, slice.filter((s) => !taken.has(s.id) && previousAnswered(s.previousStatus)).map((s) => s.id));
  let released = 0;
  let cancelled = 0;
  for (const decided of [...due, ...answered]) {
    if (signal?.aborted === true) break;
    const outcome = await decideLeg(deps, decided, now);
    if (outcome === 'released') released += 1;
    if (outcome === 'cancelled') cancelled += 1;
  }
  if (released > 0) deps.wakeOutbox();
  if (released + cancelled > 0) deps.wakeWebhooks?.();
  return { released, cancelled };
}

async function decideLeg(deps: FallbackDeps, { leg, previousStatus }: DecidedLeg, now: number): Promise<'released' | 'cancelled' | 'gone'> {
  // The first leg's send was moved later (PATCH …/schedule): the leg's time moves with it.
  if (previousStatus === 'scheduled') {
    await postponeLeg(deps.db, leg, now);
    return 'gone';
  }
  // Delivered, or a scheduled first leg cancelled (DELETE …/schedule): the leg is not wanted.
  if (previousStatus === 'delivered' || previousStatus === 'cancelled') {
    const done = await commitOrReject(deps.commit, async (tx) => {
      if (!await settleLeg(tx, leg.id, 'cancelled', now)) return false;
      await refundReservation(tx, deps, leg, now);
      return true;
    });
    return done.ok && done.value ? 'cancelled' : 'gone';
  }
  const payload = leg.payload;
  // Consent is read when the leg goes, not when it was accepted: a STOP or a suppression since then holds.
  const optedOut = leg.channel === 'email'
    ? (await suppressedAmong(deps.db, leg.accountId, [leg.recipient])).size > 0
    : (await optedOutAmong(deps.db, leg.accountId, 'sms', [leg.recipient], (payload as SmsPayload).from ?? '')).size > 0;
  const done = await commitOrReject(deps.commit, async (tx) => {
    if (!await settleLeg(tx, leg.id, 'released', now)) return false;
    const options = { ...leg.options, mode: leg.mode } as SendOptions;
    await insertSend(tx, { id: leg.sendId, accountId: leg.accountId, channel: leg.channel, payload, now, eventIds: deps.newId, options, ...(leg.requestId === null ? {} : { requestId: leg.requestId }) }, [
      optedOut
        ? { id: leg.id, recipient: leg.recipient, role: 'to', costMessages: 0, costBalance: 0, dropped: true, dropReason: leg.channel === 'email' ? 'suppressed' : 'opted_out' }
        : { id: leg.id, recipient: leg.recipient, role: 'to', costMessages: leg.reservedMessages, costBalance: leg.reservedBalance },
    ]);
    await markSendInChain(tx, leg.sendId, { chain_id: leg.chainId, leg: leg.leg, legs: leg.legs });
    if (optedOut) await refundReservation(tx, deps, leg, now);
    return true;
  });
  return done.ok && done.value ? 'released' : 'gone';
}

/** Gives back what was debited for a leg that does not go (nothing for a test key's). */
async function refundReservation(tx: Tx, deps: FallbackDeps, leg: FallbackLeg, now: number): Promise<void> {
  await refundWithEntry(tx, {
    id: deps.newId(), accountId: leg.accountId, at: now, messagesDelta: leg.reservedMessages, balanceDelta: leg.reservedBalance, sendId: leg.sendId,
  }, now);
}
