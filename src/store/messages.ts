import { CHANNELS, type Channel } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { predecessorsOf, type MessageStatus } from '../domain/message-status.ts';
import type { Executor, MessageRow } from './database.ts';
import { sql } from 'kysely';
import { batchOperationsOf, engineOf, type SendRows } from './engine.ts';
import { execute, insertAll, insertRows, placeholders, queryRows, statement, statementPerCount } from './prepared-statement.ts';
import { loadText, storeText } from './mime-pieces.ts';
import { enqueueWebhookDelivery } from './webhook-deliveries.ts';

export interface NewMessage {
  readonly id: string;
  readonly recipient: string;
  readonly role: 'to' | 'cc' | 'bcc';
  readonly costMessages: number;
  readonly costBalance: number;
  /** A suppressed recipient: stored as `dropped` with its event, never queued, never billed (cost 0). */
  readonly dropped?: boolean;
  /** Why it was dropped, posted as the event's `reason` (default `suppressed`; `opted_out`: an SMS or WhatsApp opt-out). */
  readonly dropReason?: 'suppressed' | 'opted_out';
  /** A campaign message: its campaign and contact (unique together; null on every other message). */
  readonly campaign?: { readonly campaignId: string; readonly contactId: string };
  /** When the worker may first take it (a paced campaign); default the send's time. */
  readonly availableAt?: number;
}

/** What a send asked for beyond its content, stored with it for events and delivery. */
export interface SendOptions {
  readonly family: 'transactional' | 'campaign';
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly certified: boolean;
  readonly tracking: { readonly opens: boolean; readonly clicks: boolean };
  /** The `campaign` field of POST /v1/email, stored for GET /v1/campaigns/tags/:name/stats. */
  readonly campaignName?: string | null;
  /** The sending key's mode; test messages go through the capture transports, unbilled (default live). */
  readonly mode?: KeyMode;
  /** The door the send came in by (default `api`; SMTP submission's are `smtp`). */
  readonly source?: SendSource;
  /** A scheduled send (POST … `send_at`, domain/send-at.ts): when it leaves (epoch ms). Its messages are `scheduled` until then. */
  readonly sendAt?: number;
}

export type SendSource = 'api' | 'smtp';

/** The door a stored send came in by (GET /v1/messages/:msgid's `source`). */
export async function findSendSource(db: Executor, sendId: string): Promise<SendSource> {
  const row = await db.selectFrom('sends').select('source').where('id', '=', sendId).executeTakeFirst();
  return row?.source === 'smtp' ? 'smtp' : 'api';
}

const DEFAULT_SEND_OPTIONS: SendOptions = { family: 'transactional', metadata: null, certified: false, tracking: { opens: false, clicks: false } };

export interface StoredMessage {
  readonly id: string;
  readonly accountId: string;
  readonly sendId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly role: string;
  readonly status: MessageStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly providerRef: string | null;
  /** A campaign message's campaign and contact (null on every other message; the contact also once erased). */
  readonly campaignId: string | null;
  readonly contactId: string | null;
  /** The mode of the key that sent it (docs/sandbox.md). */
  readonly mode: KeyMode;
  /** A scheduled send's time (epoch ms); null: sent at once. */
  readonly sendAt: number | null;
  /** What it was billed: prepaid messages, balance (minor units); given back if it never leaves. */
  readonly costMessages: number;
  readonly costBalance: number;
}

export interface MessageEvent {
  readonly type: string;
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
}

export const SEND_COLUMNS = ['id', 'account_id', 'channel', 'payload', 'created_at', 'family', 'metadata', 'certified', 'track_opens', 'track_clicks', 'campaign_name', 'request_id', 'source', 'subject', 'sender'];
export const MESSAGE_COLUMNS = [
  'id', 'account_id', 'send_id', 'channel', 'recipient', 'recipient_role', 'status', 'cost_messages', 'cost_balance', 'created_at', 'updated_at',
  'campaign_id', 'contact_id', 'mode', 'send_at',
];
const EVENT_COLUMNS = ['id', 'message_id', 'type', 'at', 'data', 'sending_at'];
export const OUTBOX_COLUMNS = ['message_id', 'channel', 'available_at', 'attempts'];
const SENDS = insertRows('sends', SEND_COLUMNS);
const MESSAGES = insertRows('messages', MESSAGE_COLUMNS);
const EVENTS = insertRows('message_events', EVENT_COLUMNS);
const OUTBOX = insertRows('outbox', OUTBOX_COLUMNS);

/** The rows of accepted sends, table by table (insertAll: many rows a statement, or one prepared row at a time in process). */
export async function insertSendRowsApart(db: Executor, rows: SendRows): Promise<void> {
  await insertAll(db, SENDS, rows.sends);
  await insertAll(db, MESSAGES, rows.messages);
  await insertAll(db, OUTBOX, rows.outbox);
}

/**
 * Stores one accepted request: its shared payload, a message per recipient and the
 * outbox rows that make the worker deliver them. No `queued` event row: the message
 * row's created_at is that step (store/message-timeline.ts shows it).
 * A `dropped` recipient gets its message row and `dropped` event (with its webhook
 * delivery) and no outbox row. Call inside the transaction that debits the account.
 */
export async function insertSend(
  db: Executor,
  send: NewSend,
  messages: readonly NewMessage[],
): Promise<void> {
  await insertSends(db, [{ send, messages }]);
}

export interface NewSend {
  readonly id: string;
  readonly accountId: string;
  readonly channel: Channel;
  readonly payload: unknown;
  readonly now: number;
  readonly eventIds: () => string;
  readonly options?: SendOptions;
  /** The x-request-id of the request that made it, for the worker's delivery lines (absent: none, a campaign's). */
  readonly requestId?: string;
}

/** A send with its messages, as insertSends takes them. */
export interface SendWithMessages {
  readonly send: NewSend;
  readonly messages: readonly NewMessage[];
}

/**
 * insertSend for many sends at once (a campaign batch: one send per contact; a batch send's
 * items): each table's rows go in one multi-row statement per 500 rows on PostgreSQL, rather
 * than a round trip per row; one send of a few recipients, in one statement (store/postgres/send-rows.ts).
 */
export async function insertSends(db: Executor, sends: readonly SendWithMessages[]): Promise<void> {
  const sendRows = sends.map(({ send }) => {
    const options = send.options ?? DEFAULT_SEND_OPTIONS;
    return [
      send.id, send.accountId, send.channel, JSON.stringify(send.payload), send.now, options.family,
      options.metadata === null ? null : JSON.stringify(options.metadata),
      options.certified ? 1 : 0, options.tracking.opens ? 1 : 0, options.tracking.clicks ? 1 : 0, options.campaignName ?? null, send.requestId ?? null, options.source ?? 'api',
      ...subjectAndSender(send.channel, send.payload),
    ];
  });
  const queued = sends.flatMap(({ send, messages }) => messages.filter((m) => m.dropped !== true).map((m) => ({ send, m })));
  // A scheduled send's messages wait as `scheduled` in the outbox, due at their time: the claim's index on (channel, available_at) releases them.
  const messageRows = queued.map(({ send, m }) => [
    m.id, send.accountId, send.id, send.channel, m.recipient, m.role, send.options?.sendAt === undefined ? 'queued' : 'scheduled', m.costMessages, m.costBalance,
    send.now, send.now, m.campaign?.campaignId ?? null, m.campaign?.contactId ?? null, send.options?.mode ?? 'live', send.options?.sendAt ?? null,
  ]);
  const outboxRows = queued.map(({ send, m }) => [m.id, send.channel, m.availableAt ?? send.options?.sendAt ?? send.now, 0]);
  const [only] = sends;
  const oneSend = sends.length === 1 && only !== undefined && queued.length === only.messages.length && queued.length > 0;
  await batchOperationsOf(db).insertSendRows(db, { sends: sendRows, messages: messageRows, outbox: outboxRows }, oneSend);
  for (const { send, messages } of sends) {
    for (const m of messages.filter((m) => m.dropped === true)) {
      await insertAll(db, MESSAGES, [[
        m.id, send.accountId, send.id, send.channel, m.recipient, m.role, 'dropped', 0, 0, send.now, send.now, m.campaign?.campaignId ?? null, m.campaign?.contactId ?? null,
        send.options?.mode ?? 'live', null,
      ]]);
      await recordEvent(db, { messageId: m.id, type: 'dropped', eventId: send.eventIds(), at: send.now, data: { reason: m.dropReason ?? 'suppressed' } });
    }
    const sendAt = send.options?.sendAt;
    if (sendAt === undefined) continue;
    for (const m of messages.filter((m) => m.dropped !== true)) {
      await recordEvent(db, { messageId: m.id, type: 'scheduled', eventId: send.eventIds(), at: send.now, data: { send_at: new Date(sendAt).toISOString() } });
    }
  }
}

/** What a send's list row shows of its payload: an email's subject and From address, an SMS's sender (null: the default one). */
function subjectAndSender(channel: Channel, payload: unknown): [string | null, string | null] {
  const fields = (typeof payload === 'object' && payload !== null ? payload : {}) as { subject?: unknown; from?: unknown };
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  if (channel === 'email') return [text(fields.subject), text((fields.from as { email?: unknown } | null | undefined)?.email)];
  return [null, channel === 'sms' ? text(fields.from) : null];
}

/** Scoped by account: another account's msgid finds nothing. */
export async function findMessage(db: Executor, accountId: string, id: string): Promise<StoredMessage | undefined> {
  const row = await db.selectFrom('messages').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toStoredMessage(row);
}

function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id, accountId: row.account_id, sendId: row.send_id, channel: row.channel as Channel, recipient: row.recipient,
    role: row.recipient_role, status: row.status as MessageStatus, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
    providerRef: row.provider_ref, campaignId: row.campaign_id, contactId: row.contact_id, mode: row.mode === 'test' ? 'test' : 'live',
    sendAt: row.send_at === null ? null : Number(row.send_at), costMessages: Number(row.cost_messages), costBalance: Number(row.cost_balance),
  };
}

export interface MessageFilter {
  readonly status?: MessageStatus;
  /** Only these channels (the caller's, or the one asked for); at least one. */
  readonly channels: readonly Channel[];
  /** Created at or after (epoch ms). */
  readonly since?: number;
  /** Created before (epoch ms). */
  readonly until?: number;
  readonly recipient?: string;
  /** Recipients that start with this text (case as stored). */
  readonly recipientPrefix?: string;
  /** Email subjects that contain this text, ignoring case. */
  readonly subject?: string;
  /** Sends whose metadata holds this text at this top-level key. */
  readonly metadata?: { readonly key: string; readonly value: string };
  /** Messages of this campaign (its id). */
  readonly campaignId?: string;
  /** Sends that carried this `campaign` field (the API's tag). */
  readonly tag?: string;
  /** Only messages of this mode (live unless asked: test messages are listed apart). */
  readonly mode?: KeyMode;
  /** Only messages after this one in the log's order (older, or as old with a smaller id). */
  readonly after?: { readonly createdAt: number; readonly id: string };
  readonly limit: number;
}

/**
 * The smallest text greater than every text that starts with `prefix`, in code point
 * order (SQLite's BINARY collation and PostgreSQL's C collation of UTF-8): its last
 * character moved one up. A range [prefix, next) reads an index where LIKE 'prefix%'
 * would not (SQLite's LIKE folds case; PostgreSQL's needs a pattern operator class).
 */
export function prefixEnd(prefix: string): string | undefined {
  const chars = [...prefix];
  while (chars.length > 0) {
    const last = (chars.pop() ?? '').codePointAt(0) ?? 0;
    if (last < 0x10ffff) return chars.join('') + String.fromCodePoint(last + (last === 0xd7ff ? 0x801 : 1));
  }
  return undefined;
}

/** A position in the log's order, (created_at, id). */
export interface LogPosition {
  readonly createdAt: number;
  readonly id: string;
}

/**
 * Whether the filter is a search whose matches no index gives in time order: subject,
 * metadata and tag look each candidate's send up; a recipient prefix reads the recipient
 * index in address order, and a short one would sort a large part of the account.
 */
export const isSearch = (filter: Omit<MessageFilter, 'limit'>): boolean =>
  filter.subject !== undefined || filter.metadata !== undefined || filter.tag !== undefined || filter.recipientPrefix !== undefined;

/**
 * The account's messages that pass the filter, in no order. The status, recipient and
 * date filters read the indexes ending in (created_at, id) (migration 0016), a prefix
 * the recipient index as a range; subject, metadata and tag look up each candidate's
 * send by its primary key. `indexOnly`: without the search's conditions (isSearch), whose
 * candidates are read no further back than `from`, the boundary scanBoundary found.
 * `after`: older than this position (a cursor).
 */
function filteredMessages(db: Executor, accountId: string, filter: Omit<MessageFilter, 'limit'>, bounds: { readonly from?: LogPosition; readonly indexOnly?: boolean } = {}) {
  const { textAt, containsText } = engineOf(db).querySql;
  const searching = bounds.indexOnly !== true;
  const prefix = searching ? filter.recipientPrefix : undefined;
  const prefixTo = prefix === undefined ? undefined : prefixEnd(prefix);
  const onSend = searching && (filter.subject !== undefined || filter.metadata !== undefined || filter.tag !== undefined);
  const { after } = filter;
  const { from } = bounds;
  return db
    .selectFrom('messages')
    .where('account_id', '=', accountId)
    .where('mode', '=', filter.mode ?? 'live')
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status ?? ''))
    .$if(filter.channels.length < CHANNELS.length, (q) => q.where('channel', 'in', filter.channels))
    .$if(filter.since !== undefined, (q) => q.where('created_at', '>=', filter.since ?? 0))
    .$if(filter.until !== undefined, (q) => q.where('created_at', '<', filter.until ?? 0))
    .$if(filter.recipient !== undefined, (q) => q.where('recipient', '=', filter.recipient ?? ''))
    .$if(prefix !== undefined, (q) => q.where('recipient', '>=', prefix ?? ''))
    .$if(prefixTo !== undefined, (q) => q.where('recipient', '<', prefixTo ?? ''))
    .$if(filter.campaignId !== undefined, (q) => q.where('campaign_id', '=', filter.campaignId ?? ''))
    // The cursor's condition is written `created_at <= t and (created_at < t or id < i)` rather
    // than as a row value, so both stores take `created_at <= t` as the index bound; `from` alike.
    .$if(after !== undefined, (q) => q
      .where('created_at', '<=', after?.createdAt ?? 0)
      .where((w) => w.or([w('created_at', '<', after?.createdAt ?? 0), w('id', '<', after?.id ?? '')])))
    .$if(from !== undefined, (q) => q
      .where('created_at', '>=', from?.createdAt ?? 0)
      .where((w) => w.or([w('created_at', '>', from?.createdAt ?? 0), w('id', '>=', from?.id ?? '')])))
    .$if(onSend, (q) => q.where(({ exists, selectFrom }) => exists(selectFrom('sends').select('sends.id').whereRef('sends.id', '=', 'messages.send_id')
      .$if(filter.subject !== undefined, (s) => s.where(containsText(sql.ref('sends.subject'), filter.subject ?? '')))
      .$if(filter.tag !== undefined, (s) => s.where('sends.campaign_name', '=', filter.tag ?? ''))
      .$if(filter.metadata !== undefined, (s) => s.where(textAt(sql.ref('sends.metadata'), [filter.metadata?.key ?? '']), '=', filter.metadata?.value ?? '')))));
}

/**
 * The account's messages, newest first by (created_at, id), one page. The index
 * messages_account_created_id (account_id, created_at, id) serves this order and a date
 * window together, and the status and recipient indexes end in (created_at, id) too
 * (migration 0016): every filter reads one page of index, never sorts a day or an account.
 * `from`: read no further back than this position (a search's boundary).
 */
export async function listMessages(db: Executor, accountId: string, filter: MessageFilter, from?: LogPosition): Promise<StoredMessage[]> {
  const rows = await filteredMessages(db, accountId, filter, from === undefined ? {} : { from })
    .selectAll('messages')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map(toStoredMessage);
}

/**
 * How far back a search reads: the position of the `scan`-th candidate of the filters
 * other than the search's (from `after`, newest first), or undefined when there are
 * fewer. One walk of the time-ordered index; the search then checks at most `scan` candidates.
 */
export async function scanBoundary(db: Executor, accountId: string, filter: Omit<MessageFilter, 'limit'>, scan: number): Promise<LogPosition | undefined> {
  const row = await filteredMessages(db, accountId, filter, { indexOnly: true })
    .select(['created_at', 'id'])
    .orderBy('created_at', 'desc').orderBy('id', 'desc')
    .offset(scan - 1).limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : { createdAt: Number(row.created_at), id: row.id };
}

/** How many messages pass the filter (no further back than `from`), counting no further than `cap` + 1 (more than `cap`: `capped`). */
export async function countMessages(db: Executor, accountId: string, filter: Omit<MessageFilter, 'limit' | 'after'>, cap: number, from?: LogPosition): Promise<{ count: number; capped: boolean }> {
  const row = await db.selectFrom(filteredMessages(db, accountId, filter, from === undefined ? {} : { from }).select('messages.id').limit(cap + 1).as('matching'))
    .select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const n = Number(row.n);
  return { count: Math.min(n, cap), capped: n > cap };
}

/** What a message's send says of it: subject, sender, tag, metadata; and its campaign's name. */
export interface SendFacts {
  readonly subject: string | null;
  readonly sender: string | null;
  readonly tag: string | null;
  readonly metadata: Readonly<Record<string, unknown>> | null;
}

/** The facts of these sends, by send id (one query). */
export async function sendFacts(db: Executor, sendIds: readonly string[]): Promise<Map<string, SendFacts>> {
  if (sendIds.length === 0) return new Map();
  const rows = await db.selectFrom('sends').select(['id', 'subject', 'sender', 'campaign_name', 'metadata']).where('id', 'in', [...new Set(sendIds)]).execute();
  return new Map(rows.map((r) => [r.id, {
    subject: r.subject, sender: r.sender, tag: r.campaign_name, metadata: r.metadata === null ? null : JSON.parse(r.metadata) as Record<string, unknown>,
  }]));
}

/** The names of the account's campaigns among `ids`, by id (one query). */
export async function campaignNames(db: Executor, accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('campaigns').select(['id', 'name']).where('account_id', '=', accountId).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** The creation time of the account's message `id`, for a cursor that names only the id. */
export async function messageCreatedAt(db: Executor, accountId: string, id: string): Promise<number | undefined> {
  const row = await db.selectFrom('messages').select('created_at').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : Number(row.created_at);
}

/** The message's stored events in order, without the steps the timeline derives (store/message-timeline.ts). */
export async function listMessageEvents(db: Executor, messageId: string): Promise<MessageEvent[]> {
  return (await listStoredEvents(db, messageId)).map(({ sendingAt: _, ...event }) => event);
}

/** A stored event, with the claim time of the attempt whose outcome it records (null otherwise). */
export interface StoredEvent extends MessageEvent {
  readonly sendingAt: number | null;
}

export async function listStoredEvents(db: Executor, messageId: string): Promise<StoredEvent[]> {
  const rows = await db.selectFrom('message_events').select(['type', 'at', 'data', 'sending_at']).where('message_id', '=', messageId).orderBy('id').execute();
  return rows.map((r) => ({
    type: r.type, at: Number(r.at), data: JSON.parse(r.data) as Record<string, unknown>, sendingAt: r.sending_at === null ? null : Number(r.sending_at),
  }));
}

export async function loadSendPayload(db: Executor, sendId: string): Promise<unknown> {
  const row = await db.selectFrom('sends').select('payload').where('id', '=', sendId).executeTakeFirstOrThrow();
  return JSON.parse(row.payload) as unknown;
}

/**
 * Records a message event, and with it a status transition when `status` is given;
 * events are born only here (and in outbox/claim.ts, for the `sending` step of an
 * attempt that ended without an outcome). The outcome of a delivery attempt carries
 * `sendingAt`, its claim time: that attempt's `sending` step, which has no row of its own. The status moves only from an allowed
 * predecessor, so a late report (a `sent` recorded after a fast receipt already said
 * `delivered`) adds its event to the history without moving the message backwards.
 * The event's webhook delivery, if the account wants it, commits with it.
 */
export async function recordEvent(
  db: Executor,
  event: {
    messageId: string; eventId: string; at: number; data: Readonly<Record<string, unknown>>; providerRef?: string; sendingAt?: number;
  } & ({ status: MessageStatus; type?: string } | { status?: undefined; type: string }),
): Promise<EventEffects> {
  let moved = false;
  const predecessors = event.status === undefined ? [] : predecessorsOf(event.status);
  if (event.status !== undefined && predecessors.length > 0) {
    moved = event.providerRef === undefined
      ? await execute(db, moveStatus(predecessors.length), [event.status, event.at, event.messageId, ...predecessors]) === 1
      : await execute(db, moveStatusWithRef(predecessors.length), [event.status, event.at, event.messageId, event.providerRef, ...predecessors]) === 1;
  }
  if (event.providerRef !== undefined && !moved) await execute(db, SET_PROVIDER_REF, [event.providerRef, event.messageId]);
  const type = event.type ?? event.status;
  if (type === undefined) throw new TypeError('recordEvent needs a status or a type');
  await insertAll(db, EVENTS, [[event.eventId, event.messageId, type, event.at, JSON.stringify(event.data), event.sendingAt ?? null]]);
  const webhookQueued = await enqueueWebhookDelivery(db, { id: event.eventId, messageId: event.messageId, type, at: event.at, data: event.data });
  return { moved, webhookQueued };
}

export interface EventEffects {
  /** The status moved (false when none was asked for, or the message was past it). */
  readonly moved: boolean;
  /** A webhook delivery of the event was queued, for the dispatcher to post after the commit. */
  readonly webhookQueued: boolean;
}

// A status moves only from one of its predecessors; one text per number of them.
const moveStatus = statementPerCount((n) =>
  `update messages set status = $1, updated_at = $2 where id = $3 and status in (${placeholders(4, n)})`);
const moveStatusWithRef = statementPerCount((n) =>
  `update messages set status = $1, updated_at = $2, provider_ref = $4 where id = $3 and status in (${placeholders(5, n)})`);
const SET_PROVIDER_REF = statement('update messages set provider_ref = $1 where id = $2');

/** The message a peer knows by `providerRef` (SMPP message_id, WhatsApp wamid). */
export async function findMessageByProviderRef(db: Executor, channel: Channel, providerRef: string): Promise<StoredMessage | undefined> {
  const [row] = await queryRows<MessageRow>(db, FIND_BY_PROVIDER_REF, [channel, providerRef]);
  return row && toStoredMessage(row);
}

// Every delivery receipt looks its message up by the peer's reference.
const FIND_BY_PROVIDER_REF = statement('select * from messages where channel = $1 and provider_ref = $2');

/**
 * Marks claimed messages as `sending`: the first transition of every attempt. The step
 * has no event row; the claim's outbox row and then the outcome's event keep its time.
 */
export async function markSending(db: Executor, messageIds: readonly string[], at: number): Promise<void> {
  if (messageIds.length === 0) return;
  // A claim is at most a few hundred rows: one IN list (far below the parameter caps).
  await execute(db, markSendingStatement(messageIds.length), [at, ...SENDING_PREDECESSORS, ...messageIds]);
}

/** `sending` steps that have no outcome to ride on (outbox/claim.ts: a claim abandoned by a worker that died), as event rows. */
export async function insertSendingEvents(db: Executor, steps: readonly { id: string; eventId: string; attempt: number; at: number }[]): Promise<void> {
  await insertAll(db, EVENTS, steps.map((s) => [s.eventId, s.id, 'sending', s.at, JSON.stringify({ attempt: s.attempt }), null]));
}

const SENDING_PREDECESSORS = predecessorsOf('sending');
const markSendingStatement = statementPerCount((messages) => `
  update messages set status = 'sending', updated_at = $1
  where status in (${placeholders(2, SENDING_PREDECESSORS.length)})
    and id in (${placeholders(2 + SENDING_PREDECESSORS.length, messages)})`);

/**
 * Stores (or replaces, on a retried delivery) what the capture transport captured. An
 * email is kept as a layout over pieces its send keeps once (store/mime-pieces.ts), so
 * copies to many recipients do not each repeat the To header and the bodies.
 */
export async function putCapture(db: Executor, capture: { messageId: string; contentType: string; body: string; at: number }): Promise<void> {
  const stored = await storeText(db, capture.messageId, capture.body);
  await db
    .insertInto('captures')
    .values({ message_id: capture.messageId, content_type: capture.contentType, body: stored.body, layout: stored.layout, created_at: capture.at })
    .onConflict((oc) => oc.column('message_id').doUpdateSet({ content_type: capture.contentType, body: stored.body, layout: stored.layout, created_at: capture.at }))
    .execute();
}

/** What was captured, exactly as the capture transport handed it over. */
export async function findCapture(db: Executor, messageId: string): Promise<{ contentType: string; body: string } | undefined> {
  const row = await db.selectFrom('captures').select(['content_type', 'body', 'layout']).where('message_id', '=', messageId).executeTakeFirst();
  return row && { contentType: row.content_type, body: await loadText(db, messageId, row) };
}
