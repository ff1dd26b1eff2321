import type { Channel } from '../domain/account.ts';
import {
  CONVERSATION_PAGE, LAST_TEXT_CHARS, PREVIEW_CHARS, THREAD_PAGE, decodeTimeCursor, encodeTimeCursor, isPhone, parsePerson, preview, recipientsOf, replyChannel,
  windowOpenUntil, type TimeCursor,
} from '../domain/conversation.ts';
import { inboundData, type InboundMessage } from '../domain/inbound-message.ts';
import type { EmailPayload, SmsPayload, WhatsappPayload } from '../domain/outbound.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { textFromHtml } from '../domain/text-from-html.ts';
import { conversationChannels, listConversationHeads, listReceivedFrom, listSentTo, type SentItem } from '../store/conversations.ts';
import { lastInboundAt } from '../store/whatsapp-sessions.ts';
import type { AppDeps } from './deps.ts';
import { emailBodiesOf } from './email-bodies.ts';
import { isPurgedPayload } from './retention-sweep.ts';

// GET /v1/conversations and /v1/conversations/:person (issue 23, item 7): one thread per
// person across channels, for the web application's Conversations page. Reads only.

type Deps = Pick<AppDeps, 'db' | 'clock' | 'publicUrl'>;

/** What herald sent: the message as the log shows it, with its content in short. */
export interface SentThreadItem {
  readonly direction: 'out';
  readonly at: string;
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  /** SMS text, WhatsApp text or rendered template, an email's text (a preview); null once purged by retention. */
  readonly text: string | null;
  readonly subject?: string;
  readonly template?: string;
}

/** What the person wrote: GET /v1/inbound's item (the webhook's `data`), with its time. */
export type ReceivedThreadItem = { readonly direction: 'in'; readonly at: string } & Readonly<Record<string, unknown>>;

export type ThreadItem = SentThreadItem | ReceivedThreadItem;

export interface ConversationThread {
  readonly person: string;
  readonly reply_channel: Channel;
  readonly whatsapp_window_open_until: string | null;
  /** Oldest first: the thread as it reads. */
  readonly data: readonly ThreadItem[];
  /** Pass as `cursor` for the older page; null when this page starts the thread. */
  readonly next_cursor: string | null;
}

export interface ConversationSummary {
  readonly person: string;
  readonly channels: readonly Channel[];
  readonly last_at: string;
  readonly last_text: string | null;
  readonly last_direction: 'in' | 'out';
}

export interface ConversationPage {
  readonly data: readonly ConversationSummary[];
  readonly next_cursor: string | null;
}

export interface PageQuery {
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const badCursor = () => reject('invalidField', { detail: 'cursor must be the next_cursor of a previous page' });

/** One entry of a thread before it is shown: its time and id order the merge. */
type Entry = { at: number; id: string } & ({ sent: SentItem } | { received: InboundMessage });

/**
 * The latest `limit` items between the account and the person (older than `before`), newest
 * first: `limit + 1` of each side is enough to know whether an older page exists.
 */
async function threadEntries(deps: Deps, accountId: string, person: string, channels: readonly Channel[], before: TimeCursor | undefined, limit: number): Promise<{ entries: Entry[]; more: boolean }> {
  const filter = { channels, before, limit: limit + 1 };
  const [sent, received] = await Promise.all([
    listSentTo(deps.db, accountId, recipientsOf(person), filter),
    listReceivedFrom(deps.db, accountId, person, filter),
  ]);
  const merged: Entry[] = [
    ...sent.map((item) => ({ at: item.createdAt, id: item.msgid, sent: item })),
    ...received.map((message) => ({ at: message.receivedAt, id: message.id, received: message })),
  ].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { entries: merged.slice(0, limit), more: merged.length > limit };
}

async function sentView(item: SentItem): Promise<SentThreadItem> {
  const base = { direction: 'out', at: iso(item.createdAt), msgid: item.msgid, channel: item.channel, status: item.status } as const;
  if (item.payload === null || isPurgedPayload(item.payload)) return { ...base, text: null };
  switch (item.channel) {
    case 'sms':
      return { ...base, text: (item.payload as SmsPayload).text };
    case 'whatsapp': {
      const payload = item.payload as WhatsappPayload;
      return payload.kind === 'text' ? { ...base, text: payload.text } : { ...base, text: payload.renderedBody, template: payload.templateName };
    }
    case 'email': {
      const payload = item.payload as Partial<EmailPayload>;
      const bodies = await emailBodiesOf(payload);
      const text = bodies.text ?? (bodies.html === null ? null : textFromHtml(bodies.html));
      return { ...base, text: text === null ? null : preview(text.trim(), PREVIEW_CHARS), ...(typeof payload.subject === 'string' ? { subject: payload.subject } : {}) };
    }
  }
}

const receivedView = (deps: Deps, message: InboundMessage): ReceivedThreadItem =>
  ({ ...inboundData(message, deps.publicUrl), direction: 'in', at: iso(message.receivedAt) });

const entryView = (deps: Deps, entry: Entry): Promise<ThreadItem> =>
  'sent' in entry ? sentView(entry.sent) : Promise.resolve(receivedView(deps, entry.received));

/**
 * GET /v1/conversations/:person — what herald sent the person and what came back, oldest
 * first, the latest THREAD_PAGE items (older ones by cursor); notFound for a person the
 * account never wrote to nor heard from (another account's person is one of those).
 */
export async function getConversation(deps: Deps, accountId: string, personText: string, query: PageQuery, channels: readonly Channel[]): Promise<Result<ConversationThread>> {
  const person = parsePerson(personText);
  if (person === null) return reject('invalidField', { detail: 'person must be a phone number (+ and digits) or an email address' });
  let before: TimeCursor | undefined;
  if (query.cursor !== undefined) {
    const cursor = decodeTimeCursor(query.cursor);
    if (cursor === null) return badCursor();
    before = cursor;
  }
  const { entries, more } = await threadEntries(deps, accountId, person, channels, before, query.limit ?? THREAD_PAGE);
  if (entries.length === 0 && before === undefined) return reject('notFound');
  const oldest = entries.at(-1);
  const openUntil = channels.includes('whatsapp') && isPhone(person)
    ? windowOpenUntil(await lastInboundAt(deps.db, accountId, person.slice(1)), deps.clock())
    : null;
  return ok({
    person,
    reply_channel: replyChannel(person, openUntil),
    whatsapp_window_open_until: openUntil === null ? null : iso(openUntil),
    data: await Promise.all(entries.reverse().map((entry) => entryView(deps, entry))),
    next_cursor: more && oldest !== undefined ? encodeTimeCursor({ at: oldest.at, key: oldest.id }) : null,
  });
}

/** A list row's last words: the text, else an email's subject, else what kind of message it was. */
function lastText(view: ThreadItem): string | null {
  const item: Readonly<Record<string, unknown>> = { ...view };
  const text = typeof item['text'] === 'string' && item['text'] !== '' ? item['text']
    : typeof item['subject'] === 'string' ? item['subject']
      : typeof item['type'] === 'string' ? `[${item['type']}]` : null;
  return text === null ? null : preview(text.replace(/\s+/g, ' ').trim(), LAST_TEXT_CHARS);
}

/**
 * GET /v1/conversations — the people who wrote to the account, newest activity (theirs or
 * herald's) first, a page at a time; each with the channels used and the last message.
 */
export async function listConversations(deps: Deps, accountId: string, query: PageQuery, channels: readonly Channel[]): Promise<Result<ConversationPage>> {
  let after: TimeCursor | undefined;
  if (query.cursor !== undefined) {
    const cursor = decodeTimeCursor(query.cursor);
    if (cursor === null) return badCursor();
    after = cursor;
  }
  const limit = query.limit ?? CONVERSATION_PAGE;
  const heads = await listConversationHeads(deps.db, accountId, { channels, after, limit: limit + 1 });
  const page = heads.slice(0, limit);
  const used = await conversationChannels(deps.db, accountId, page.map(({ person }) => ({ person, recipients: recipientsOf(person) })), channels);
  const data: ConversationSummary[] = [];
  for (const head of page) {
    const [last] = (await threadEntries(deps, accountId, head.person, channels, undefined, 1)).entries;
    const view = last === undefined ? undefined : await entryView(deps, last);
    data.push({
      person: head.person,
      channels: [...(used.get(head.person) ?? [])].sort(),
      last_at: iso(head.lastAt),
      last_text: view === undefined ? null : lastText(view),
      last_direction: view?.direction ?? 'in',
    });
  }
  const last = page.at(-1);
  return ok({ data, next_cursor: heads.length > limit && last !== undefined ? encodeTimeCursor({ at: last.lastAt, key: last.person }) : null });
}
