import { contactVariables, renderCampaignEmail } from '../campaigns/campaign-content.ts';
import type { CampaignView, ResendRequest, TestSendRequest } from '../campaigns/campaign-shapes.ts';
import type { Filter } from '../campaigns/segment-filter.ts';
import { channelActive, type Account } from '../domain/account.ts';
import { parseAddress } from '../domain/email-address.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { effectiveTracking } from '../domain/send-options.ts';
import { debitMessages, findAccount } from '../store/accounts.ts';
import { findCampaign, forgetDomainPaces, insertCampaign, moveCampaign, startCampaign, type Campaign } from '../store/campaigns.ts';
import { findContactsByEmail } from '../store/contacts.ts';
import { appendLedger } from '../store/ledger.ts';
import { insertSend, type NewMessage } from '../store/messages.ts';
import { suppressedAmong } from '../store/suppressions.ts';
import { unsubscribeLink } from '../domain/tracking-token.ts';
import type { KeyDeps } from './api-keys.ts';
import { campaignView, getCampaign, quoteAudience, resolveSource, wrongState } from './campaigns.ts';
import { withinReadLimit } from './heavy-reads.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { refundUnsent } from './campaign-refund.ts';
import { costOf } from './send-charge.ts';

// A campaign's life after the draft (docs/campaigns.md):
//
//   draft ──send──▶ scheduled ──send_at──▶ running ⇄ paused ──▶ finished
//                       │                     │         │
//                       └──────cancel─────────┴─────────┴──▶ cancelled
//
// The send debits the account for the whole audience in one transaction with the
// status change (refused whole when it cannot pay: the campaign stays a draft); the
// runner (campaigns/campaign-runner.ts) then makes the messages in batches. What was
// debited and never made into a message is given back once: when the audience is
// walked (a contact who left meanwhile) or at cancel, with a ledger entry each.
// A test campaign (made by a test key, docs/sandbox.md) walks the same life, but its
// messages are test messages: nothing is debited, so nothing is given back.

const TEST_SEND_METADATA = 'campaign_test';

async function emailAccount(deps: KeyDeps, accountId: string): Promise<Result<Account>> {
  const account = await findAccount(deps.db, accountId);
  if (account === undefined) return reject('notFound');
  return channelActive(account, 'email') ? ok(account) : reject('serviceInactive');
}

const trackingFor = (account: Account, html: boolean) =>
  effectiveTracking({ metadata: null, campaign: null, certified: false, tracking: {} }, account.tracking, html);

/**
 * POST /v1/campaigns/:id/send — fixes the audience (contacts created from now on are
 * not in it), the content and the tracking, and debits one message per recipient of
 * the quote, all in one unit of work; due now (`running`) or at send_at (`scheduled`).
 */
export async function sendCampaign(deps: KeyDeps, accountId: string, id: string): Promise<Result<CampaignView>> {
  const account = await emailAccount(deps, accountId);
  if (!account.ok) return account;
  const campaign = await findCampaign(deps.db, accountId, id);
  if (campaign === undefined) return reject('notFound');
  if (campaign.status !== 'draft') return wrongState(campaign);
  const source = await resolveSource(deps, accountId, campaign);
  if (!source.ok) return source;
  const quoted = await withinReadLimit(deps, () => quoteAudience(deps, campaign));
  if (!quoted.ok) return quoted;
  const quote = quoted.value;
  if (quote.recipients === 0) return reject('campaignEmpty');
  const now = deps.clock();
  const scheduled = campaign.sendAt !== null && campaign.sendAt > now;
  const billed = quote.recipients;
  const cutoff = deps.newId();
  // The unit of work returns the answer, the campaign as sent: an Idempotency-Key is stored with it in the same transaction (app/idempotent-send.ts).
  const committed = await commitOrReject(deps.commit, async (tx): Promise<CampaignView> => {
    const started = await startCampaign(tx, {
      id, accountId, status: scheduled ? 'scheduled' : 'running', content: source.value, tracking: trackingFor(account.value, source.value.html !== null),
      cutoff, billed, dueAt: scheduled ? (campaign.sendAt ?? now) : now, now,
    });
    if (!started) throw new RejectionError({ code: 'campaignState', status: 'sent' });
    // A test campaign's messages are test messages: never debited (docs/sandbox.md).
    if (campaign.mode === 'live') {
      if (!(await debitMessages(tx, accountId, billed, now))) throw new RejectionError({ code: 'noMessagesLeft' });
      await appendLedger(tx, { id: deps.newId(), accountId, at: now, messagesDelta: -billed, balanceDelta: 0, reason: 'campaign.send', sendId: null });
    }
    const sent = await findCampaign(tx, accountId, id);
    if (sent === undefined) throw new RejectionError({ code: 'notFound' });
    return campaignView(sent);
  });
  if (!committed.ok) {
    if (committed.rejection.code !== 'campaignState') return committed;
    const now2 = await findCampaign(deps.db, accountId, id);
    return now2 === undefined ? reject('notFound') : wrongState(now2);
  }
  deps.wakeCampaigns?.();
  return ok(committed.value);
}

type Action = 'pause' | 'resume' | 'cancel';
const MOVES: Readonly<Record<Action, { from: readonly Campaign['status'][]; to: Campaign['status'] }>> = {
  pause: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['scheduled', 'running', 'paused'], to: 'cancelled' },
};

/**
 * POST /v1/campaigns/:id/pause | resume | cancel. A pause stops the making of
 * messages (those already made still go: at most one batch, or the paced ones of the
 * next seconds); a cancel ends the campaign and refunds what was never made.
 */
export async function moveCampaignTo(deps: KeyDeps, accountId: string, id: string, action: Action): Promise<Result<CampaignView>> {
  const move = MOVES[action];
  const moved = await commitOrReject(deps.commit, async (tx) => {
    const now = deps.clock();
    const before = await moveCampaign(tx, { id, accountId, from: move.from, to: move.to, dueAt: action === 'resume' ? now : null, now });
    if (before !== undefined && action === 'cancel') {
      await refundUnsent(deps, tx, before, before.queued, now);
      await forgetDomainPaces(tx, id);
    }
    return before;
  });
  if (!moved.ok) return moved;
  if (moved.value === undefined) {
    const campaign = await findCampaign(deps.db, accountId, id);
    return campaign === undefined ? reject('notFound') : wrongState(campaign);
  }
  if (action === 'resume') deps.wakeCampaigns?.();
  return getCampaign(deps, accountId, id);
}

/**
 * POST /v1/campaigns/:id/test — the campaign's current content to up to 10
 * addresses, personalised as the contact of that address would see it (or as an
 * unknown contact), each an ordinary email billed as one (`email.send`), marked
 * `metadata.herald = campaign_test`; suppressed addresses are dropped, unbilled.
 */
export async function sendCampaignTest(
  deps: KeyDeps, accountId: string, id: string, body: TestSendRequest, callerMode: KeyMode = 'live',
): Promise<Result<{ to: { email: string; msgid: string }[] }>> {
  const addresses: string[] = [];
  for (const [i, raw] of body.emails.entries()) {
    const address = parseAddress(raw);
    if (address === null) return reject('invalidField', { detail: `emails[${i}] is not an email address` });
    addresses.push(address);
  }
  const account = await emailAccount(deps, accountId);
  if (!account.ok) return account;
  const campaign = await findCampaign(deps.db, accountId, id);
  if (campaign === undefined) return reject('notFound');
  const source = await resolveSource(deps, accountId, campaign);
  if (!source.ok) return source;
  // A test key's test send, or any test send of a test campaign: test messages, captured and never billed.
  const mode: KeyMode = callerMode === 'test' || campaign.mode === 'test' ? 'test' : 'live';
  const contacts = new Map((await findContactsByEmail(deps.db, accountId, addresses.map((a) => a.toLowerCase()))).map((c) => [c.email, c]));
  const suppressed = await suppressedAmong(deps.db, accountId, addresses);
  const tracking = trackingFor(account.value, source.value.html !== null);
  const now = deps.clock();
  const sends: { id: string; payload: EmailPayload; message: NewMessage }[] = [];
  for (const address of addresses) {
    const msgid = deps.newId();
    const contact = contacts.get(address.toLowerCase()) ?? { email: address, name: null, attributes: {} };
    const variables = { ...campaign.variables, ...contactVariables(contact), unsubscribe_url: await unsubscribeLink(deps, accountId, msgid, now) };
    const rendered = renderCampaignEmail(deps.templates, source.value, variables);
    if (!rendered.ok) return rendered;
    const dropped = suppressed.has(address.toLowerCase());
    sends.push({
      id: deps.newId(),
      payload: { from: campaign.from, replyTo: campaign.replyTo, ...rendered.value, to: [address], cc: [], attachments: [], tracking, certified: false },
      message: { id: msgid, recipient: address, role: 'to', costMessages: dropped ? 0 : costOf(mode, 1), costBalance: 0, dropped },
    });
  }
  const billed = sends.filter((s) => s.message.dropped !== true).length;
  const committed = await commitOrReject(deps.commit, async (tx) => {
    for (const send of sends) {
      await insertSend(tx, {
        id: send.id, accountId, channel: 'email', payload: send.payload, now, eventIds: deps.newId,
        options: { family: 'campaign', metadata: { herald: TEST_SEND_METADATA, campaign_id: id }, certified: false, tracking, mode },
      }, [send.message]);
    }
    if (billed > 0 && mode === 'live') {
      if (!(await debitMessages(tx, accountId, billed, now))) throw new RejectionError({ code: 'noMessagesLeft' });
      await appendLedger(tx, { id: deps.newId(), accountId, at: now, messagesDelta: -billed, balanceDelta: 0, reason: 'email.send', sendId: null });
    }
  });
  if (!committed.ok) return committed;
  deps.wakeOutbox();
  if (billed < sends.length) deps.wakeWebhooks?.();
  return ok({ to: sends.map((s) => ({ email: s.message.recipient, msgid: s.message.id })) });
}

/** Who a follow-up targets, as a filter over the campaign's messages. */
function followUpFilter(campaignId: string, to: 'not_opened' | 'not_clicked'): Filter {
  if (to === 'not_opened') return { not_opened: campaignId };
  // Got the message (a human open implies it did), and no human click.
  return { and: [{ or: [{ not_opened: campaignId }, { opened: campaignId }] }, { not: { clicked: campaignId } }] };
}

/**
 * POST /v1/campaigns/:id/resend — a follow-up draft with the same content and lists,
 * narrowed to the contacts who did not open (human opens only) or did not click the
 * campaign's message. Only a campaign that sent messages can be followed up.
 */
export async function resendCampaign(deps: KeyDeps, accountId: string, id: string, body: ResendRequest): Promise<Result<CampaignView>> {
  const campaign = await findCampaign(deps.db, accountId, id);
  if (campaign === undefined) return reject('notFound');
  if (campaign.status === 'draft' || campaign.status === 'scheduled') return wrongState(campaign);
  const target = followUpFilter(campaign.id, body.to);
  const newId = deps.newId();
  await insertCampaign(deps.db, {
    id: newId, accountId, now: deps.clock(), follows: { campaignId: campaign.id, to: body.to },
    name: `${campaign.name} (${body.to.replace('_', ' ')})`.slice(0, 200),
    subject: body.subject ?? campaign.subject, from: campaign.from, replyTo: campaign.replyTo, body: campaign.body,
    templateId: campaign.templateId, variables: campaign.variables, lists: campaign.lists, excludeLists: campaign.excludeLists,
    filter: campaign.filter === null ? target : { and: [campaign.filter, target] },
    sendAt: body.send_at === undefined || body.send_at === null ? null : Date.parse(body.send_at),
    messagesPerMinute: campaign.messagesPerMinute, messagesPerMinutePerDomain: campaign.messagesPerMinutePerDomain, mode: campaign.mode,
  });
  const created = await findCampaign(deps.db, accountId, newId);
  return created === undefined ? reject('notFound') : ok(campaignView(created));
}
