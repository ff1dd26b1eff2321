import { contactVariables, renderCampaignEmail } from '../campaigns/campaign-content.ts';
import { segmentOf } from '../campaigns/segment-filter.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { unsubscribeLink } from '../domain/tracking-token.ts';
import { domainOf } from '../domain/email-address.ts';
import {
  countPendingMessages, domainPaces, finishCampaign, findCampaign, forgetDomainPaces, hasPendingMessages, markRunning, recordBatch, saveDomainPaces,
  type Campaign,
} from '../store/campaigns.ts';
import type { Contact } from '../store/contacts.ts';
import { insertSends, type NewMessage } from '../store/messages.ts';
import { segmentPage } from '../store/segments.ts';
import { suppressedAmong } from '../store/suppressions.ts';
import type { KeyDeps } from './api-keys.ts';
import { refundUnsent } from './campaign-refund.ts';
import { costOf } from './send-charge.ts';

// The campaign runner's work on one claimed campaign (campaigns/campaign-runner.ts
// drives it): walk the audience in keyset pages after the stored cursor, and make each
// page's contacts into ordinary messages — a `sends` row with the contact's
// personalised content, a message carrying campaign_id and contact_id (unique
// together: a second message for a contact fails the batch rather than going out), its
// outbox row — committed with the campaign's new cursor and counts,
// conditioned on the runner's lease and the campaign still `running`. A crash between
// batches loses nothing (the next runner resumes after the cursor) and repeats
// nothing (the batch in hand rolled back whole).
//
// Pacing (docs/campaigns.md): each message gets the time the worker may take it
// (outbox available_at), the later of the campaign's next slot (messages_per_minute,
// continuing from the campaign's `next_at`) and its recipient domain's
// (messages_per_minute_per_domain, kept in campaign_domains with the batch); the runner
// makes them at most `lookaheadMs` ahead of time, stopping the walk before the first
// contact whose time is further, so a pause takes hold within that window and the
// outbox never holds a campaign's future. Unpaced, the runner keeps at most `backlog`
// of the campaign's messages in the outbox.

export interface CampaignWorkOptions {
  readonly leaseMs: number;
  /** Contacts per batch (one transaction each). */
  readonly batchSize: number;
  /** How far ahead of its time a paced message is made. */
  readonly lookaheadMs: number;
  /** How often a walked campaign is looked at until its last message has its outcome. */
  readonly finishPollMs: number;
  /**
   * Most of an unpaced campaign's messages waiting in the outbox before the runner makes
   * more: the worker claims in time order, so a message another account sends meanwhile
   * waits behind at most this many of the campaign's, not behind the whole audience.
   */
  readonly backlog: number;
}

/** What the runner does with the campaign next: look again at `dueAt` (null: when someone changes it), or nothing (ended, lost). */
export type CampaignStep = { readonly kind: 'release'; readonly dueAt: number | null } | { readonly kind: 'finished' } | { readonly kind: 'lost' } | { readonly kind: 'stopped' };

class BatchRefused extends Error {}


interface Prepared {
  readonly sendId: string;
  readonly payload: EmailPayload;
  readonly message: NewMessage;
}

/** Runs batches of a claimed campaign until it is paced, walked, paused or `keepGoing` says stop. */
export async function advanceCampaign(
  deps: KeyDeps, claimed: Campaign, owner: string, options: CampaignWorkOptions, keepGoing: () => boolean,
): Promise<CampaignStep> {
  let campaign = claimed;
  if (campaign.status === 'scheduled') {
    if (!(await markRunning(deps.db, campaign.id, owner, deps.clock()))) return { kind: 'lost' };
    campaign = { ...campaign, status: 'running' };
  }
  const interval = campaign.messagesPerMinute === null ? 0 : 60_000 / campaign.messagesPerMinute;
  const domainInterval = campaign.messagesPerMinutePerDomain === null ? 0 : 60_000 / campaign.messagesPerMinutePerDomain;
  while (keepGoing()) {
    const now = deps.clock();
    if (campaign.walked) {
      if (await hasPendingMessages(deps.db, campaign.id)) return { kind: 'release', dueAt: now + options.finishPollMs };
      const finished = await deps.commit.run(async (tx) => {
        if (!(await finishCampaign(tx, campaign.id, owner, now))) return false;
        await forgetDomainPaces(tx, campaign.id);
        return true;
      });
      return finished ? { kind: 'finished' } : { kind: 'lost' };
    }
    const startAt = Math.max(now, campaign.nextAt ?? now);
    const horizon = now + options.lookaheadMs;
    // Due again when that slot is a look-ahead away, but not sooner than half of one, so
    // a campaign held by its pace makes its messages a few at a time, not one per claim.
    const waitFor = (slot: number): CampaignStep => ({ kind: 'release', dueAt: Math.max(slot - options.lookaheadMs, now + options.lookaheadMs / 2) });
    if (interval > 0 && startAt > horizon) return waitFor(startAt);
    if (interval === 0 && (await countPendingMessages(deps.db, campaign.id, options.backlog)) + options.batchSize > options.backlog) {
      return { kind: 'release', dueAt: now + options.finishPollMs };
    }
    const limit = interval === 0 ? options.batchSize : Math.max(1, Math.min(options.batchSize, Math.floor((horizon - startAt) / interval) + 1));

    const page = await segmentPage(deps.db, campaign.accountId, segmentOf(campaign), { ...(campaign.cursor === null ? {} : { after: campaign.cursor }), limit }, now);
    const cutoff = campaign.cutoff ?? '';
    const contacts = page.contacts.filter((c) => c.id < cutoff);
    const plan = await planBatch(deps, campaign, contacts, { startAt, interval, domainInterval, horizon });
    // A contact whose domain (or the campaign) has no slot within the look-ahead ends the
    // batch before it: the walk goes on from there when that slot comes near.
    const blockedAt = plan.blockedAt;
    if (plan.taken.length === 0 && blockedAt !== undefined) return waitFor(blockedAt);
    // Walked when the page looked at the account's last contact or past the cutoff.
    const walked = blockedAt === undefined && (page.scannedTo === null || page.scannedTo >= cutoff || contacts.length < page.contacts.length);
    const prepared = await renderBatch(deps, campaign, plan.entries, now);
    const queued = prepared.filter((p) => p.message.dropped !== true).length;
    const dropped = prepared.length - queued;
    // Every contact taken: go on after the window the page looked through (it may hold
    // none of the segment); held by the pace: after the last contact taken.
    const cursor = blockedAt === undefined ? (page.scannedTo ?? plan.taken.at(-1)?.id ?? null) : (plan.taken.at(-1)?.id ?? null);
    try {
      await deps.commit.run(async (tx) => {
        const recorded = await recordBatch(tx, {
          id: campaign.id, owner, cursor, queued, dropped, walked, nextAt: plan.nextAt, leaseUntil: now + options.leaseMs, now,
        });
        if (!recorded) throw new BatchRefused();
        await insertSends(tx, prepared.map((p) => ({
          send: {
            id: p.sendId, accountId: campaign.accountId, channel: 'email', payload: p.payload, now, eventIds: deps.newId,
            // A test campaign's messages are test messages: captured, never billed (docs/sandbox.md).
            options: { family: 'campaign', metadata: null, certified: false, tracking: campaign.tracking, mode: campaign.mode },
          },
          messages: [p.message],
        })));
        if (plan.domainPaces.size > 0) await saveDomainPaces(tx, campaign.id, plan.domainPaces);
        if (walked) await refundUnsent(deps, tx, campaign, campaign.queued + queued, now);
      });
    } catch (error) {
      if (!(error instanceof BatchRefused)) throw error;
      // Paused or cancelled meanwhile (the move set its due time), or another runner holds it now.
      const current = await findCampaign(deps.db, campaign.accountId, campaign.id);
      return current?.status === 'running' ? { kind: 'lost' } : { kind: 'stopped' };
    }
    if (queued > 0) deps.wakeOutbox();
    if (dropped > 0) deps.wakeWebhooks?.();
    campaign = { ...campaign, cursor: cursor ?? campaign.cursor, queued: campaign.queued + queued, dropped: campaign.dropped + dropped, walked, nextAt: plan.nextAt };
    if (blockedAt !== undefined) return waitFor(blockedAt);
  }
  return { kind: 'release', dueAt: deps.clock() };
}

interface Pace {
  /** When the batch's first message may go: now, or the campaign's next slot. */
  readonly startAt: number;
  /** ms between two messages of the campaign (messages_per_minute); 0: unpaced. */
  readonly interval: number;
  /** ms between two messages to one recipient domain (messages_per_minute_per_domain); 0: no limit. */
  readonly domainInterval: number;
  /** The latest time a message is made for now (now + the look-ahead). */
  readonly horizon: number;
}

interface Entry {
  readonly contact: Contact;
  /** Suppressed: a `dropped` message, unbilled, no slot. */
  readonly dropped: boolean;
  /** When the worker may take it (integral ms). */
  readonly availableAt: number;
}

interface Plan {
  /** The contacts walked past, in order: those made into messages and those skipped (nothing debited left for them). */
  readonly taken: readonly Contact[];
  readonly entries: readonly Entry[];
  /** The campaign's next slot after the batch (campaigns.next_at). */
  readonly nextAt: number;
  /** The domains the batch sent to and when their next message may go. */
  readonly domainPaces: ReadonlyMap<string, number>;
  /** The slot of the contact the batch stopped before (beyond the horizon); undefined: the batch took every contact. */
  readonly blockedAt: number | undefined;
}

/**
 * Which contacts become messages in this batch, and when each may go. A message's time
 * is the later of the campaign's next slot and its domain's; paced campaigns keep their
 * slots in walk order, one interval apart (so no minute carries more than
 * messages_per_minute), unpaced ones let a message go at once when its domain allows.
 * The walk stops at the first contact whose time is beyond the horizon: contacts are
 * walked in id order, their domains mixed, so a limited domain holds the walk back only
 * as much as its own messages must wait anyway. A suppressed address becomes a `dropped`
 * message, unbilled; the others are billed from what the send debited, up to it (a
 * contact who joined the lists since the send, with an older id, finds no message left
 * and is skipped).
 */
async function planBatch(deps: KeyDeps, campaign: Campaign, contacts: readonly Contact[], pace: Pace): Promise<Plan> {
  const { interval, domainInterval, horizon } = pace;
  const suppressed = contacts.length === 0 ? new Set<string>() : await suppressedAmong(deps.db, campaign.accountId, contacts.map((c) => c.email));
  const known = domainInterval === 0 || contacts.length === 0
    ? new Map<string, number>()
    : await domainPaces(deps.db, campaign.id, [...new Set(contacts.map((c) => domainOf(c.email)))]);
  const domainPaceNow = new Map<string, number>();
  let left = campaign.billed - campaign.queued;
  let next = pace.startAt;
  const taken: Contact[] = [];
  const entries: Entry[] = [];
  for (const contact of contacts) {
    if (suppressed.has(contact.email)) {
      entries.push({ contact, dropped: true, availableAt: pace.startAt });
      taken.push(contact);
      continue;
    }
    if (left <= 0) {
      taken.push(contact);
      continue;
    }
    const domain = domainOf(contact.email);
    const at = Math.ceil(Math.max(next, domainPaceNow.get(domain) ?? known.get(domain) ?? next));
    if (at > horizon) return { taken, entries, nextAt: Math.ceil(next), domainPaces: domainPaceNow, blockedAt: at };
    left -= 1;
    entries.push({ contact, dropped: false, availableAt: at });
    taken.push(contact);
    if (interval > 0) next = at + interval;
    if (domainInterval > 0) domainPaceNow.set(domain, Math.ceil(at + domainInterval));
  }
  return { taken, entries, nextAt: Math.ceil(next), domainPaces: domainPaceNow, blockedAt: undefined };
}

/** The planned messages, rendered and signed before the transaction (CPU work, not database work). */
async function renderBatch(deps: KeyDeps, campaign: Campaign, entries: readonly Entry[], now: number): Promise<Prepared[]> {
  if (entries.length === 0) return [];
  const source = campaign.content;
  if (source === null) throw new Error(`campaign ${campaign.id} is running without content`);
  const prepared: Prepared[] = [];
  for (const { contact, dropped, availableAt } of entries) {
    const msgid = deps.newId();
    const variables = { ...campaign.variables, ...contactVariables(contact), unsubscribe_url: await unsubscribeLink(deps, campaign.accountId, msgid, now) };
    const rendered = renderCampaignEmail(deps.templates, source, variables);
    if (!rendered.ok) throw new Error(`campaign ${campaign.id} content no longer renders: ${rendered.rejection.code}`);
    const payload: EmailPayload = {
      from: campaign.from, replyTo: campaign.replyTo, ...rendered.value, to: [contact.email], cc: [], attachments: [], tracking: campaign.tracking, certified: false,
    };
    const campaignKey = { campaignId: campaign.id, contactId: contact.id };
    prepared.push({
      sendId: deps.newId(), payload,
      message: dropped
        ? { id: msgid, recipient: contact.email, role: 'to', costMessages: 0, costBalance: 0, dropped: true, campaign: campaignKey }
        : { id: msgid, recipient: contact.email, role: 'to', costMessages: costOf(campaign.mode, 1), costBalance: 0, campaign: campaignKey, availableAt },
    });
  }
  return prepared;
}
