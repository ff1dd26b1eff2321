// GET /v1/conversations and /v1/conversations/:person (docs/conversations.md): the queries
// and the answers, declared once.
import { Type, type Static } from '@sinclair/typebox';
import { CHANNELS } from '../../domain/account.ts';
import { CONVERSATION_PAGE, CONVERSATION_PAGE_MAX, LAST_TEXT_CHARS, THREAD_PAGE } from '../../domain/conversation.ts';
import { MESSAGE_STATUSES } from '../../domain/message-status.ts';
import { Nullable, Timestamp } from './common.ts';

const Cursor = Type.Optional(Type.String({ maxLength: 700, errorMessage: 'must be the next_cursor of a previous page', description: 'next_cursor of the previous page' }));
const ChannelName = Type.Union(CHANNELS.map((c) => Type.Literal(c)));

export const ConversationListQuery = Type.Object({
  cursor: Cursor,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE_MAX, default: CONVERSATION_PAGE, errorMessage: `must be a whole number from 1 to ${CONVERSATION_PAGE_MAX}` })),
});
export type ConversationListQuery = Static<typeof ConversationListQuery>;

export const ConversationThreadQuery = Type.Object({
  cursor: Cursor,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: THREAD_PAGE, default: THREAD_PAGE, errorMessage: `must be a whole number from 1 to ${THREAD_PAGE}` })),
});
export type ConversationThreadQuery = Static<typeof ConversationThreadQuery>;

export const ConversationParams = Type.Object({
  person: Type.String({ maxLength: 320, description: '`+` and digits, or an email address (URL-encoded)' }),
});
export type ConversationParams = Static<typeof ConversationParams>;

export const ConversationPage = Type.Object({
  data: Type.Array(Type.Object({
    person: Type.String({ description: '`+` and digits, or a lower-cased email address' }),
    channels: Type.Array(ChannelName, { description: 'The channels the person wrote on or was written to on' }),
    last_at: Timestamp('The newest message either way'),
    last_text: Nullable(Type.String({ description: `That message's text (or subject, or [type]), at most ${LAST_TEXT_CHARS} characters` })),
    last_direction: Type.Union([Type.Literal('in'), Type.Literal('out')]),
  })),
  next_cursor: Nullable(Type.String()),
});

const SentItem = Type.Object({
  direction: Type.Literal('out'),
  at: Timestamp('When herald accepted it'),
  msgid: Type.String({ format: 'uuid' }),
  channel: ChannelName,
  status: Type.Union(MESSAGE_STATUSES.map((s) => Type.Literal(s))),
  text: Nullable(Type.String({ description: 'SMS text, WhatsApp text or rendered template, an email\'s text cut to 1,000 characters; null once purged' })),
  subject: Type.Optional(Type.String()),
  template: Type.Optional(Type.String({ description: 'A WhatsApp template\'s name' })),
});

// The person's message: GET /v1/inbound's item, the channel's own fields included.
const ReceivedItem = Type.Object({
  direction: Type.Literal('in'),
  at: Timestamp('When it was received'),
  id: Type.String({ format: 'uuid' }),
  channel: ChannelName,
  from: Type.String(),
  to: Type.String(),
  text: Nullable(Type.String()),
  received_at: Timestamp(),
}, { additionalProperties: true });

export const ConversationThread = Type.Object({
  person: Type.String(),
  reply_channel: Type.Union(CHANNELS.map((c) => Type.Literal(c)), { description: '`whatsapp` while the window is open, else `sms` to a number, `email` to an address' }),
  whatsapp_window_open_until: Nullable(Timestamp('When the 24-hour WhatsApp window closes; null when it is not open')),
  data: Type.Array(Type.Union([SentItem, ReceivedItem]), { description: 'Oldest first' }),
  next_cursor: Nullable(Type.String({ description: 'The older page' })),
});
