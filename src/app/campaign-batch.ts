import { contactVariables, renderCampaignEmail } from '../campaigns/campaign-content.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { trackingTokens } from '../domain/tracking-token.ts';
import {
  countPendingMessages, finishCampaign, findCampaign, hasPendingMessages, markRunning, recordBatch, type Campaign,
} from '../store/campaigns.ts';
import type { Contact } from '../store/contacts.ts';
import { insertSend, type NewMessage } from '../store/messages.ts';
import { segmentPage } from '../store/segments.ts';
import { suppressedAmong } from '../store/suppressions.ts';
import type { KeyDeps } from './api-keys.ts';
import { segmentOf } from './campaigns.ts';
import { refundUnsent } from './campaign-refund.ts';

// The campaign runner's work on one claimed campaign (campaigns/campaign-runner.ts
// drives it): walk the audience in keyset pages after the stored cursor, and make each
// page's contacts into ordinary messages — a `sends` row with the contact's
// personalised content, a message carrying campaign_id and contact_id (unique
// together: a second message for a contact fails the batch rather than going out), its
// `queued` event and outbox row — committed with the campaign's new cursor and counts,
// conditioned on the runner's lease and the campaign still `running`. A crash between
// batches loses nothing (the next runner resumes after the cursor) and repeats
// nothing (the batch in hand rolled back whole).
//
// Pacing: with messages_per_minute, the messages of a batch become available to the
// worker one interval apart (outbox available_at), continuing from the campaign's
// `next_at`; the runner makes them at most `lookaheadMs` ahead of time, so a pause
// takes hold within that window and the outbox never holds a campaign's future.
// Unpaced, the runner keeps at most `backlog` of the campaign's messages in the outbox.

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

/** The message's signed unsubscribe URL (the same token List-Unsubscribe carries): `/u/<token>`. */
export async function unsubscribeLink(deps: KeyDeps, accountId: string, msgid: string, now: number): Promise<string> {
  const token = await trackingTokens(deps.signingSecret).sign({ kind: 'unsubscribe', accountId, msgid }, now);
  return `${deps.publicUrl}/u/${token}`;
}

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
  while (keepGoing()) {
    const now = deps.clock();
    if (campaign.walked) {
      if (await hasPendingMessages(deps.db, campaign.id)) return { kind: 'release', dueAt: now + options.finishPollMs };
      return (await finishCampaign(deps.db, campaign.id, owner, now)) ? { kind: 'finished' } : { kind: 'lost' };
    }
    const startAt = Math.max(now, campaign.nextAt ?? now);
    if (interval > 0 && startAt > now + options.lookaheadMs) return { kind: 'release', dueAt: startAt - options.lookaheadMs };
    if (interval === 0 && (await countPendingMessages(deps.db, campaign.id, options.backlog)) + options.batchSize > options.backlog) {
      return { kind: 'release', dueAt: now + options.finishPollMs };
    }
    const limit = interval === 0 ? options.batchSize : Math.max(1, Math.min(options.batchSize, Math.floor((now + options.lookaheadMs - startAt) / interval) + 1));

    const page = await segmentPage(deps.db, campaign.accountId, segmentOf(campaign), { ...(campaign.cursor === null ? {} : { after: campaign.cursor }), limit }, now);
    const cutoff = campaign.cutoff ?? '';
    const contacts = page.filter((c) => c.id < cutoff);
    const walked = page.length < limit || contacts.length < page.length;
    const prepared = await prepareBatch(deps, campaign, contacts, startAt, interval, now);
    const queued = prepared.filter((p) => p.message.dropped !== true).length;
    const dropped = prepared.length - queued;
    const cursor = contacts.at(-1)?.id ?? null;
    const nextAt = startAt + queued * interval;
    try {
      await deps.commit.run(async (tx) => {
        const recorded = await recordBatch(tx, {
          id: campaign.id, owner, cursor, queued, dropped, walked, nextAt, leaseUntil: now + options.leaseMs, now,
        });
        if (!recorded) throw new BatchRefused();
        for (const p of prepared) {
          await insertSend(tx, {
            id: p.sendId, accountId: campaign.accountId, channel: 'email', payload: p.payload, now, eventIds: deps.newId,
            options: { family: 'campaign', metadata: null, certified: false, tracking: campaign.tracking },
          }, [p.message]);
        }
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
    campaign = { ...campaign, cursor: cursor ?? campaign.cursor, queued: campaign.queued + queued, dropped: campaign.dropped + dropped, walked, nextAt };
  }
  return { kind: 'release', dueAt: deps.clock() };
}

/**
 * The batch's messages, made before the transaction (rendering and signing are CPU
 * work, not database work): a suppressed address becomes a `dropped` message, unbilled;
 * the others are billed from what the send debited, up to it (a contact who joined the
 * lists since the send, with an older id, finds no message left and is skipped).
 */
async function prepareBatch(deps: KeyDeps, campaign: Campaign, contacts: readonly Contact[], startAt: number, interval: number, now: number): Promise<Prepared[]> {
  if (contacts.length === 0) return [];
  const source = campaign.content;
  if (source === null) throw new Error(`campaign ${campaign.id} is running without content`);
  const suppressed = await suppressedAmong(deps.db, campaign.accountId, contacts.map((c) => c.email));
  let left = campaign.billed - campaign.queued;
  let slot = 0;
  const prepared: Prepared[] = [];
  for (const contact of contacts) {
    const dropped = suppressed.has(contact.email);
    if (!dropped && left <= 0) continue;
    const msgid = deps.newId();
    const variables = { ...campaign.variables, ...contactVariables(contact), unsubscribe_url: await unsubscribeLink(deps, campaign.accountId, msgid, now) };
    const rendered = renderCampaignEmail(deps.templates, source, variables);
    if (!rendered.ok) throw new Error(`campaign ${campaign.id} content no longer renders: ${rendered.rejection.code}`);
    const payload: EmailPayload = {
      from: campaign.from, replyTo: campaign.replyTo, ...rendered.value, to: [contact.email], cc: [], attachments: [], tracking: campaign.tracking, certified: false,
    };
    const campaignKey = { campaignId: campaign.id, contactId: contact.id };
    if (dropped) {
      prepared.push({ sendId: deps.newId(), payload, message: { id: msgid, recipient: contact.email, role: 'to', costMessages: 0, costBalance: 0, dropped: true, campaign: campaignKey } });
      continue;
    }
    left -= 1;
    prepared.push({
      sendId: deps.newId(), payload,
      message: { id: msgid, recipient: contact.email, role: 'to', costMessages: 1, costBalance: 0, campaign: campaignKey, availableAt: Math.round(startAt + slot * interval) },
    });
    slot += 1;
  }
  return prepared;
}
