import type { Channel } from '../domain/account.ts';
import { encodeMessageCursor, refineMessageQuery, SEARCH_SCAN_MAX, TOTAL_CAP, type MessageListQuery } from '../domain/message-query.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import {
  campaignNames, countMessages, findCapture, findMessage, findSendSource, listMessages, loadSendPayload, messageCreatedAt, scanBoundary, isSearch, sendFacts,
  type MessageFilter, type SendFacts, type SendSource, type StoredMessage,
} from '../store/messages.ts';
import { messageTimeline } from '../store/message-timeline.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import type { AppDeps } from './deps.ts';
import { isPurgedPayload } from './retention-sweep.ts';
import { emailBodiesOf } from './email-bodies.ts';
import { chainOfSend, type ChainView } from './fallback-chain.ts';

/** What a message was, beyond its delivery: shown on the log and the message page (issue 24). */
export interface MessageFacts {
  /** An email's subject; null for SMS and WhatsApp. */
  readonly subject: string | null;
  /** An email's From address, an SMS's sender when one was asked for; null otherwise. */
  readonly sender: string | null;
  /** The campaign it belongs to, with its name. */
  readonly campaign: { readonly id: string; readonly name: string } | null;
  /** The `campaign` field its send carried (the API's tag). */
  readonly tag: string | null;
}

export interface MessageView extends MessageFacts {
  /** The metadata its send carried. */
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly recipient: string;
  readonly created_at: string;
  /** Only on a test key's message (docs/sandbox.md); live messages look as they always did. */
  readonly mode?: 'test';
  /** Only on a scheduled send: when it leaves (or was to). */
  readonly send_at?: string;
  readonly source: SendSource;
  readonly events: readonly ({ readonly type: string; readonly at: string } & Readonly<Record<string, unknown>>)[];
  /** Only on a leg of a fallback chain: the chain's legs, msgids and states (docs/fallback.md). */
  readonly fallback?: ChainView;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The account's message, when the caller may read its channel (`channels`: the
 * channels the caller's scopes reach): notFound for another account's msgid,
 * keyNotAuthorized for a channel the caller lacks.
 */
async function readableMessage(deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[]): Promise<Result<StoredMessage>> {
  const message = await findMessage(deps.db, accountId, msgid);
  if (!message) return reject('notFound');
  return channels.includes(message.channel) ? ok(message) : reject('keyNotAuthorized');
}

/** GET /v1/messages/:msgid — the account's own messages only. */
export async function getMessage(deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[]): Promise<Result<MessageView>> {
  const readable = await readableMessage(deps, accountId, msgid, channels);
  if (!readable.ok) return readable;
  const message = readable.value;
  const [events, source, facts, chain] = await Promise.all([
    messageTimeline(deps.db, message), findSendSource(deps.db, message.sendId), factsOf(deps, [message]), chainOfSend(deps.db, accountId, message.sendId),
  ]);
  const send = facts.sends.get(message.sendId);
  return ok({
    ...messageFacts(message, facts),
    metadata: send?.metadata ?? null,
    msgid: message.id,
    channel: message.channel,
    status: message.status,
    recipient: message.recipient,
    created_at: iso(message.createdAt),
    ...testMark(message),
    ...sendAtOf(message),
    source,
    events: events.map((e) => ({ ...e.data, type: e.type, at: iso(e.at) })),
    ...(chain === undefined ? {} : { fallback: chain }),
  });
}

export interface MessageSummary extends MessageFacts {
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly recipient: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly mode?: 'test';
  readonly send_at?: string;
}

export interface MessagePage {
  readonly data: readonly MessageSummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  readonly next_cursor: string | null;
  /** With include_total=true: how many match, at most TOTAL_CAP; `total_capped` when more do. */
  readonly total?: number;
  readonly total_capped?: boolean;
}

interface PageFacts {
  readonly sends: Map<string, SendFacts>;
  readonly campaigns: Map<string, string>;
}

/** The sends and campaign names of these messages, two queries for a page. */
async function factsOf(deps: AppDeps, messages: readonly StoredMessage[]): Promise<PageFacts> {
  const campaignIds = messages.flatMap((m) => (m.campaignId === null ? [] : [m.campaignId]));
  const [sends, campaigns] = await Promise.all([
    sendFacts(deps.db, messages.map((m) => m.sendId)),
    messages[0] === undefined ? new Map<string, string>() : campaignNames(deps.db, messages[0].accountId, campaignIds),
  ]);
  return { sends, campaigns };
}

function messageFacts(m: StoredMessage, facts: PageFacts): MessageFacts {
  const send = facts.sends.get(m.sendId);
  const name = m.campaignId === null ? undefined : facts.campaigns.get(m.campaignId);
  return {
    subject: send?.subject ?? null, sender: send?.sender ?? null, tag: send?.tag ?? null,
    campaign: m.campaignId === null || name === undefined ? null : { id: m.campaignId, name },
  };
}

const summary = (m: StoredMessage, facts: PageFacts): MessageSummary => ({
  msgid: m.id, channel: m.channel, status: m.status, recipient: m.recipient, created_at: iso(m.createdAt), updated_at: iso(m.updatedAt), ...testMark(m),
  ...sendAtOf(m), ...messageFacts(m, facts),
});

/** A test key's message says so; a live one carries no mode field (its shape is the interface's). */
const testMark = (m: StoredMessage): { mode?: 'test' } => (m.mode === 'test' ? { mode: 'test' } : {});

/** A scheduled send's time; a message sent at once carries no send_at field. */
const sendAtOf = (m: StoredMessage): { send_at?: string } => (m.sendAt === null ? {} : { send_at: iso(m.sendAt) });

/**
 * GET /v1/messages — the account's messages of the channels the caller may read
 * (`channels`), newest first, filtered, one page at a time (keyset cursor). Asking
 * for a channel the caller lacks is keyNotAuthorized.
 */
export async function listAccountMessages(
  deps: AppDeps, accountId: string, checked: MessageListQuery, channels: readonly Channel[], scan = SEARCH_SCAN_MAX,
): Promise<Result<MessagePage>> {
  const query = refineMessageQuery(checked, deps.clock());
  if (!query.ok) return query;
  const { cursor, limit, channel, includeTotal, ...filter } = query.value;
  if (channel !== undefined && !channels.includes(channel)) return reject('keyNotAuthorized');
  const wanted = channel === undefined ? channels : [channel];
  if (wanted.length === 0) return ok({ data: [], next_cursor: null, ...(includeTotal ? { total: 0, total_capped: false } : {}) });
  let after: { createdAt: number; id: string } | undefined;
  if (cursor !== undefined) {
    // A bare msgid (a cursor from before the log was ordered by time): its time from the store.
    const createdAt = cursor.createdAt ?? await messageCreatedAt(deps.db, accountId, cursor.id);
    if (createdAt === undefined) return reject('invalidField', { detail: 'cursor must be the next_cursor of a previous page' });
    after = { createdAt, id: cursor.id };
  }
  const wanting = { ...filter, channels: wanted };
  const page = await searchPage(deps, accountId, { ...wanting, ...(after === undefined ? {} : { after }), limit }, scan);
  const total = includeTotal ? await searchCount(deps, accountId, wanting, scan) : undefined;
  const facts = await factsOf(deps, page.rows);
  return ok({
    data: page.rows.map((m) => summary(m, facts)),
    next_cursor: page.next === undefined ? null : encodeMessageCursor(page.next),
    ...(total === undefined ? {} : { total: total.count, total_capped: total.capped }),
  });
}

/**
 * One page of the log. A search (subject, metadata, tag, recipient prefix) reads at
 * most `scan` (SEARCH_SCAN_MAX) candidates a page: when the page is not full by then, it ends at
 * the last candidate read and next_cursor goes on from there (a page may hold fewer rows
 * than asked, even none, while more may match further back).
 */
async function searchPage(deps: AppDeps, accountId: string, filter: MessageFilter, scan: number): Promise<{ rows: StoredMessage[]; next?: { createdAt: number; id: string } }> {
  const from = isSearch(filter) ? await scanBoundary(deps.db, accountId, filter, scan) : undefined;
  // One row more than asked tells whether another page exists.
  const rows = await listMessages(deps.db, accountId, { ...filter, limit: filter.limit + 1 }, from);
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  if (rows.length > filter.limit && last !== undefined) return { rows: page, next: { createdAt: last.createdAt, id: last.id } };
  return from === undefined ? { rows: page } : { rows: page, next: from };
}

/** The count of a filter: up to TOTAL_CAP; a search counts within the candidates its first page reads, and says `capped` when more lie beyond. */
async function searchCount(deps: AppDeps, accountId: string, filter: Omit<MessageFilter, 'limit' | 'after'>, scan: number): Promise<{ count: number; capped: boolean }> {
  const from = isSearch(filter) ? await scanBoundary(deps.db, accountId, filter, scan) : undefined;
  const counted = await countMessages(deps.db, accountId, filter, TOTAL_CAP, from);
  return from === undefined ? counted : { count: counted.count, capped: true };
}

/** GET /v1/messages/:msgid/raw — what the capture transport stored, for the account's own message. */
export async function getCapturedMessage(
  deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[],
): Promise<Result<{ contentType: string; body: string }>> {
  const readable = await readableMessage(deps, accountId, msgid, channels);
  if (!readable.ok) return readable;
  const capture = await findCapture(deps.db, readable.value.id);
  if (capture !== undefined) return ok(capture);
  return isPurgedPayload(await loadSendPayload(deps.db, readable.value.sendId)) ? reject('contentPurged') : reject('notFound');
}

/** The email as its recipient sees it: the HTML that was sent, or its text part when it had none. */
export interface EmailPreview {
  readonly html: string | null;
  readonly text: string | null;
}

/**
 * GET /v1/messages/:msgid/preview — the rendered content stored with the accepted
 * request (whatever the transport), for the web application's sandboxed frame; a
 * message of another channel has no email to show (notFound).
 */
export async function getEmailPreview(deps: AppDeps, accountId: string, msgid: string, channels: readonly Channel[]): Promise<Result<EmailPreview>> {
  const readable = await readableMessage(deps, accountId, msgid, channels);
  if (!readable.ok) return readable;
  if (readable.value.channel !== 'email') return reject('notFound');
  const payload = (await loadSendPayload(deps.db, readable.value.sendId)) as Partial<EmailPayload>;
  if (isPurgedPayload(payload)) return reject('contentPurged');
  return ok(await emailBodiesOf(payload));
}
