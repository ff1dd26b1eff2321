import { classifyEngagement, type EngagementHistory } from '../domain/machine-detection.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { DEFAULT_TRACKED_LINK_DAYS, trackingTokens, type ClaimsOf, type TrackingClaims, type TrackingKind } from '../domain/tracking-token.ts';
import { findMessage, listMessageEvents, loadSendPayload, recordEvent, type MessageEvent, type StoredMessage } from '../store/messages.ts';
import { findLists } from '../store/lists.ts';
import { addSuppression, suppressedAmong } from '../store/suppressions.ts';
import type { KeyDeps } from './api-keys.ts';
import { campaignSubscriptions, leaveLists } from './campaign-consent.ts';
import { recordConsentChange } from './consent-changes.ts';

// What a recipient does with a message after it left: opens it (the pixel), follows
// a link, unsubscribes. Each becomes an event of the message (`opened`, `clicked`,
// `unsubscribed`) recorded with recordEvent, so its webhook delivery commits with it;
// none changes the message's status. Tokens are checked first (verifyTrackingToken):
// a forged, altered or expired one never reaches the database.

/** The HTTP request an engagement arrived with. */
export interface Visit {
  readonly method: string;
  readonly ip: string;
  readonly userAgent: string | undefined;
}

/**
 * Opens and clicks recorded per message, each. Past it the pixel and the redirect
 * still work but nothing more is recorded: a recipient reloading the pixel in a loop
 * cannot flood the account's history and webhook.
 */
export const MAX_ENGAGEMENTS_PER_MESSAGE = 100;

/** Longest User-Agent kept on an event; the rest is cut. */
const USER_AGENT_MAX = 512;

/** The token's claims when it is ours, unexpired (a click: within HERALD_TRACKED_LINK_DAYS) and of `kind`. No database look-up. */
export function verifyTrackingToken<K extends TrackingKind>(deps: KeyDeps, token: string, kind: K): Promise<ClaimsOf<K> | undefined> {
  const options = { trackedLinkDays: deps.trackedLinkDays ?? DEFAULT_TRACKED_LINK_DAYS };
  return trackingTokens(deps.signingSecret, options).verify(token, kind, deps.clock());
}

async function messageOf(deps: KeyDeps, claims: TrackingClaims): Promise<StoredMessage | undefined> {
  const message = await findMessage(deps.db, claims.accountId, claims.msgid);
  return message?.channel === 'email' ? message : undefined;
}

/**
 * The message an open or a click is about. A test key's message is never tracked (its
 * links are not rewritten); one tracked before that rule, or a token made for it some
 * other way, neither redirects nor records: a test key must not make herald's host a
 * redirect to wherever it likes.
 */
async function trackedMessageOf(deps: KeyDeps, claims: TrackingClaims): Promise<StoredMessage | undefined> {
  const message = await messageOf(deps, claims);
  return message?.mode === 'live' ? message : undefined;
}

function historyOf(events: readonly MessageEvent[]): EngagementHistory {
  const handovers = events.filter((e) => e.type === 'sent' || e.type === 'delivered');
  return {
    deliveredAt: handovers.length === 0 ? undefined : Math.max(...handovers.map((e) => e.at)),
    clicks: events.filter((e) => e.type === 'clicked').map((e) => ({ url: String(e.data['url']), at: e.at })),
  };
}

const clientFields = (visit: Visit) => ({ ip: visit.ip, user_agent: visit.userAgent?.slice(0, USER_AGENT_MAX) ?? null });

export type EngagementResult = 'recorded' | 'capped' | 'unknown-message';

/**
 * Records an open or a click (claims from verifyTrackingToken), flagged `machine` when
 * a prefetcher or scanner made it (domain/machine-detection.ts). The message's history
 * is read in the same transaction, so two clicks of a burst see each other.
 */
export async function recordEngagement(
  deps: KeyDeps,
  claims: ClaimsOf<'open' | 'click'>,
  visit: Visit,
): Promise<EngagementResult> {
  const message = await trackedMessageOf(deps, claims);
  if (!message) return 'unknown-message';
  const type = claims.kind === 'open' ? 'opened' : 'clicked';
  const url = claims.kind === 'click' ? claims.url : undefined;
  const at = deps.clock();

  const result = await deps.commit.run(async (tx): Promise<EngagementResult> => {
    const events = await listMessageEvents(tx, message.id);
    if (events.filter((e) => e.type === type).length >= MAX_ENGAGEMENTS_PER_MESSAGE) return 'capped';
    const verdict = classifyEngagement({ kind: claims.kind, method: visit.method, ip: visit.ip, userAgent: visit.userAgent, at, ...(url === undefined ? {} : { url }) }, historyOf(events));
    const data = {
      ...(url === undefined ? {} : { url }),
      machine: verdict.machine,
      ...(verdict.machine ? { machine_reason: verdict.reason } : verdict.proxy === undefined ? {} : { proxy: verdict.proxy }),
      ...clientFields(visit),
    };
    await recordEvent(tx, { messageId: message.id, type, eventId: deps.newId(), at, data });
    return 'recorded';
  });
  if (result === 'recorded') deps.wakeWebhooks?.();
  return result;
}

/** What the unsubscribe page shows before the recipient confirms. */
export interface UnsubscribeSubject {
  readonly address: string;
  /** The display name of the message's sender. */
  readonly senderName: string;
  readonly alreadyUnsubscribed: boolean;
  /** A campaign message: the link leaves the campaign's lists (the page may offer every list), nothing else. */
  readonly campaign: boolean;
  /** For a campaign: the names of its lists the person is on (left or not), so the page names what it changes. */
  readonly lists: readonly string[];
}

/** What POST /u/:token did, so the page says exactly that. */
export interface UnsubscribeDone {
  readonly address: string;
  readonly senderName: string;
  /** False: nothing changed (already unsubscribed, or no list left to leave). */
  readonly recorded: boolean;
  /** For a campaign message: the names of the lists left now, and whether every list of the account was asked; undefined: the address was suppressed. */
  readonly left?: { readonly lists: readonly string[]; readonly scope: 'campaign' | 'all' };
}

async function listNames(deps: KeyDeps, accountId: string, ids: readonly string[]): Promise<string[]> {
  const lists = await findLists(deps.db, accountId, ids);
  return ids.flatMap((id) => { const list = lists.get(id); return list === undefined ? [] : [list.name]; });
}

/** GET /u/:token: whom the link unsubscribes, without doing it (link scanners GET every link). */
export async function describeUnsubscribe(deps: KeyDeps, claims: TrackingClaims): Promise<UnsubscribeSubject | undefined> {
  const message = await messageOf(deps, claims);
  if (!message) return undefined;
  const payload = (await loadSendPayload(deps.db, message.sendId)) as EmailPayload;
  if (message.campaignId !== null) {
    const lists = await campaignSubscriptions(deps.db, { ...message, campaignId: message.campaignId }, 'campaign');
    return {
      address: message.recipient, senderName: payload.from.name, alreadyUnsubscribed: lists.every((l) => l.status === 'unsubscribed'), campaign: true,
      lists: await listNames(deps, message.accountId, lists.map((l) => l.listId)),
    };
  }
  const suppressed = await suppressedAmong(deps.db, message.accountId, [message.recipient]);
  return { address: message.recipient, senderName: payload.from.name, alreadyUnsubscribed: suppressed.size > 0, campaign: false, lists: [] };
}

/**
 * POST /u/:token: puts the recipient on the account's suppression list (reason
 * `unsubscribed`) and records `unsubscribed`, together. An address already on the list
 * (a second click, another message's link, a bounce before) stays as it was and no
 * second event is recorded: one suppression, one event. Undefined: no such message.
 *
 * A campaign message's link instead leaves the campaign's lists (`scope: 'all'`, asked
 * on the page: every list of the account), as consent changes with source
 * `unsubscribe`, and records `unsubscribed` with the lists left; no suppression, so
 * the person's transactional email still arrives. Nothing left to leave: no event.
 */
export async function unsubscribe(
  deps: KeyDeps,
  claims: TrackingClaims,
  visit: Visit & { readonly via: 'one-click' | 'page'; readonly scope?: 'campaign' | 'all' },
): Promise<UnsubscribeDone | undefined> {
  const message = await messageOf(deps, claims);
  if (!message) return undefined;
  const senderName = ((await loadSendPayload(deps.db, message.sendId)) as EmailPayload).from.name;
  const at = deps.clock();
  const campaignId = message.campaignId;
  if (campaignId !== null) {
    const scope = visit.scope ?? 'campaign';
    let leftIds: string[] = [];
    const recorded = await deps.commit.run(async (tx) => {
      const left = await leaveLists(deps, tx, { ...message, campaignId }, { scope, source: 'unsubscribe', at });
      leftIds = left;
      if (left.length === 0) return false;
      await recordEvent(tx, { messageId: message.id, type: 'unsubscribed', eventId: deps.newId(), at, data: { via: visit.via, scope, lists_left: left, ...clientFields(visit) } });
      await recordConsentChange(tx, deps, {
        accountId: message.accountId, channel: 'email', address: message.recipient.toLowerCase(), sender: '', change: 'opted_out', source: 'list', at,
        proof: { message_id: message.id, via: visit.via, scope, lists_left: left, ip: visit.ip, ...(visit.userAgent === undefined ? {} : { user_agent: visit.userAgent }) },
      });
      return true;
    });
    if (recorded) deps.wakeWebhooks?.();
    return { address: message.recipient, senderName, recorded, left: { lists: await listNames(deps, message.accountId, leftIds), scope } };
  }
  const recorded = await deps.commit.run(async (tx) => {
    const added = await addSuppression(tx, { accountId: message.accountId, address: message.recipient, reason: 'unsubscribed', messageId: message.id, at });
    if (added) {
      await recordEvent(tx, { messageId: message.id, type: 'unsubscribed', eventId: deps.newId(), at, data: { via: visit.via, ...clientFields(visit) } });
      await recordConsentChange(tx, deps, {
        accountId: message.accountId, channel: 'email', address: message.recipient.toLowerCase(), sender: '', change: 'opted_out', source: 'unsubscribe', at,
        proof: { message_id: message.id, via: visit.via, ip: visit.ip, ...(visit.userAgent === undefined ? {} : { user_agent: visit.userAgent }) },
      });
    }
    return added;
  });
  if (recorded) deps.wakeWebhooks?.();
  return { address: message.recipient, senderName, recorded };
}
