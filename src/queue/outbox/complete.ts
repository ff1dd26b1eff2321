import type { Outcome } from '../../channels/channel.ts';
import type { CertificateIssuer } from '../../domain/certificate.ts';
import { refundWithEntry } from '../../store/accounts.ts';
import type { Db, Tx } from '../../store/database.ts';
import { batchOperationsOf, type LeasedOutcome } from '../../store/engine.ts';
import { transactionPerWork, type Committer } from '../../store/group-commit.ts';
import { insertCertificate } from '../../store/certificates.ts';
import { recordEvent, type EventEffects } from '../../store/messages.ts';
import { insertSimulatedReports } from '../../store/simulated-reports.ts';
import { addSuppression } from '../../store/suppressions.ts';
import type { ClaimedMessage } from './claim.ts';
import { retryDelayMs, withinHorizon, type RetryHorizons } from './retry-policy.ts';

export interface CompletionDeps {
  readonly db: Db;
  /**
   * Commits each outcome: on SQLite the service's group committer, so the outcomes that
   * finish together (and the accepts of the moment) share one durable commit, each in
   * its own savepoint; default: a transaction of its own.
   */
  readonly commit?: Committer;
  readonly clock: () => number;
  readonly newId: () => string;
  readonly random?: () => number;
  /** How long each channel's messages are retried (HERALD_EMAIL_RETRY_HOURS for email). */
  readonly retryHorizons?: RetryHorizons;
  /** Signs a certified email's evidence into a receipt (app/certificates.ts); absent: no certificates are issued. */
  readonly issueCertificate?: CertificateIssuer;
  /** Called after an outcome whose events queued webhook deliveries has committed (to wake the dispatcher). */
  readonly onWebhookQueued?: () => void;
}

export type Resolution = 'sent' | 'retry' | 'failed' | 'lease-lost';

/**
 * Records what a transport said about one claimed message, as one unit of work
 * (atomic, possibly sharing its commit with others through deps.commit): the status
 * transition with its event, and the outbox row removed (done) or rescheduled (retry).
 * Every statement is conditioned on still holding the lease, so a worker whose lease
 * ran out cannot record a second outcome, whatever else its commit carries.
 */
export async function recordOutcome(deps: CompletionDeps, owner: string, message: ClaimedMessage, outcome: Outcome): Promise<Resolution> {
  const now = deps.clock();
  const data = { attempt: message.attempt, peer: outcome.peer, response: outcome.response };
  // Signed before the transaction opens, so it holds no crypto; a lost lease just discards it.
  const certificate = outcome.kind === 'accepted' && outcome.evidence !== undefined && deps.issueCertificate !== undefined
    ? await deps.issueCertificate({ msgid: message.msgid, accountId: message.accountId }, outcome.evidence)
    : undefined;
  // Set by the run that commits (a unit of work may run more than once).
  let webhookQueued = false;
  const noteEvent = (effects: EventEffects): void => {
    if (effects.webhookQueued) webhookQueued = true;
  };
  const resolution = await (deps.commit ?? transactionPerWork(deps.db)).run(async (tx): Promise<Resolution> => {
    webhookQueued = false;
    // The attempt's `sending` step rides on its outcome's event (store/message-timeline.ts).
    const lease = { messageId: message.msgid, owner, eventId: deps.newId(), at: now, sendingAt: message.claimedAt };
    if (outcome.kind === 'deferred' && withinHorizon(message.channel, message.createdAt, now, deps.retryHorizons)) {
      const delay = outcome.retryAfterMs ?? retryDelayMs(message.attempt, deps.random);
      const effects = await endLease(tx, { ...lease, retryAt: now + delay, status: 'deferred', data });
      if (effects === null) return 'lease-lost';
      noteEvent(effects);
      return 'retry';
    }

    if (outcome.kind === 'accepted') {
      const status = outcome.delivered === true ? 'delivered' : 'sent';
      const effects = await endLease(tx, { ...lease, status, data, ...(outcome.providerRef === undefined ? {} : { providerRef: outcome.providerRef }) });
      if (effects === null) return 'lease-lost';
      noteEvent(effects);
      // A simulator recipient's later reports commit with the acceptance they follow (outbox/simulated-reports.ts records them).
      if (outcome.simulated !== undefined) {
        await insertSimulatedReports(tx, { id: message.msgid, accountId: message.accountId }, outcome.simulated.later, { now, stepMs: outcome.simulated.stepMs, newId: deps.newId });
      }
      if (certificate !== undefined) {
        await insertCertificate(tx, { messageId: message.msgid, accountId: message.accountId, receipt: certificate.receipt, eml: certificate.eml, createdAt: now });
        noteEvent(await recordEvent(tx, { messageId: message.msgid, type: 'certified', eventId: deps.newId(), at: now, data: { certificate_url: certificate.url } }));
      }
      return 'sent';
    }
    // Failed for good (or deferred past the horizon). A message that never left the
    // house is given back to the account, once: the outbox row is gone now.
    const leftTheHouse = outcome.kind === 'failed' && outcome.leftTheHouse;
    const status = outcome.kind === 'failed' && outcome.bounced === true ? 'bounced' : 'failed';
    const details = outcome.kind === 'failed' ? outcome.details : undefined;
    const effects = await endLease(tx, { ...lease, status, data: { ...data, refunded: !leftTheHouse, ...details } });
    if (effects === null) return 'lease-lost';
    noteEvent(effects);
    // A hard bounce: the address is bad, so the account never sends to it again (send-email drops it).
    if (details?.bounce_type === 'hard') {
      await addSuppression(tx, { accountId: message.accountId, address: message.recipient, reason: 'bounced', messageId: message.msgid, at: now });
    }
    if (!leftTheHouse) await refund(tx, deps, message, now);
    return 'failed';
  });
  if (webhookQueued) deps.onWebhookQueued?.();
  return resolution;
}

/**
 * The lease's end (the outbox row rescheduled for a retry, or removed) and the outcome's
 * status with its event, on condition of the lease; null when it was lost (nothing
 * written). The engine's way (store/engine.ts): on PostgreSQL one statement, one round
 * trip (+1 when a webhook delivery is queued); on SQLite separate statements, in process.
 */
function endLease(tx: Tx, outcome: LeasedOutcome): Promise<EventEffects | null> {
  return batchOperationsOf(tx).endLease(tx, outcome);
}

async function refund(tx: Tx, deps: CompletionDeps, message: ClaimedMessage, now: number): Promise<void> {
  await refundWithEntry(tx, {
    id: deps.newId(), accountId: message.accountId, at: now, messagesDelta: message.costMessages, balanceDelta: message.costBalance, sendId: null,
  }, now);
}
