// A WhatsApp user's message as the Cloud API posts it (`value.messages[]` of a
// `messages` change), read into what herald keeps: the text, the type's own fields
// in snake_case, the media to fetch. Pure: a field of the wrong shape is left out,
// a type herald does not read is kept as `unsupported` with Meta's errors, since the
// person still wrote and the account should see that they did.
import type { ArrivingAttachment, ArrivingMessage } from './inbound-message.ts';
import { isJsonObject, ownField, type JsonObject } from './json-object.ts';

/**
 * Bounds on what one webhook body may make herald do. The body itself is bounded by
 * HERALD_BODY_LIMIT; these bound the work and what is stored per message. A longer
 * string is cut; an id past its bound is not taken, since an id must be exact (a message
 * without its wamid is skipped, media or a reply without its id is `unsupported`).
 */
export const WHATSAPP_INBOUND_LIMITS = {
  /** Entries, changes, statuses and messages walked in one body, together; the rest is ignored (Meta sends a few at a time). */
  itemsPerBody: 1000,
  /** A text body: WhatsApp's own cap on a user's text is 65,536 characters. */
  textChars: 65_536,
  /** Every other string: captions, titles, names, addresses, MIME types. */
  fieldChars: 4096,
  /** wamids, media ids, wa_ids, button ids. */
  idChars: 256,
  /** Contact cards per message, and phones or emails per card. */
  contacts: 20,
  contactFields: 20,
  /** Errors kept per unsupported message. */
  errors: 10,
} as const;

/** The media types: each posts `{id, mime_type, sha256, caption?, filename?}` under its own name. */
export const MEDIA_TYPES = ['image', 'document', 'audio', 'video', 'sticker'] as const;

/** The `type` of a stored WhatsApp message's content. */
export const INBOUND_WHATSAPP_TYPES = [
  'text', ...MEDIA_TYPES, 'location', 'contacts', 'button_reply', 'list_reply', 'button', 'reaction', 'unsupported',
] as const;
export type InboundWhatsappType = (typeof INBOUND_WHATSAPP_TYPES)[number];

/** One user message of a webhook body, read. */
export interface WebhookInboundMessage {
  /** The business number written to (`metadata.phone_number_id`). */
  readonly phoneNumberId: string;
  /** The user's WhatsApp id: digits, country code first. */
  readonly from: string;
  /** Epoch ms from Meta's `timestamp`; undefined when absent or malformed. */
  readonly at: number | undefined;
  readonly wamid: string;
  readonly text: string | null;
  /** `{type, …the type's own fields, profile_name}`, posted as is in `whatsapp.received`. */
  readonly content: JsonObject;
  /** The wamid this one answers: `context.id` (a quoted message, a pressed button's message) or the message reacted to. */
  readonly answers: string | undefined;
  readonly attachments: readonly ArrivingAttachment[];
}

const { idChars, fieldChars, textChars } = WHATSAPP_INBOUND_LIMITS;
const WA_ID = /^[0-9]{6,20}$/;

const objectsOf = (value: unknown, limit: number): JsonObject[] => (Array.isArray(value) ? value.slice(0, limit).filter(isJsonObject) : []);
const cut = (value: unknown, max: number): string | null => (typeof value === 'string' && value !== '' ? value.slice(0, max) : null);
const field = (value: unknown): string | null => cut(value, fieldChars);
const id = (value: unknown): string | null => (typeof value === 'string' && value !== '' && value.length <= idChars ? value : null);
const child = (object: JsonObject, key: string): JsonObject => {
  const value = ownField(object, key);
  return isJsonObject(value) ? value : {};
};
const coordinate = (value: unknown, bound: number): number | null => (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= bound ? value : null);

export function timeOf(value: unknown): number | undefined {
  const raw = typeof value === 'number' ? String(value) : value;
  return typeof raw === 'string' && /^[0-9]{1,12}$/.test(raw) ? Number(raw) * 1000 : undefined;
}

/** `[{code, title, details}]` from Meta's `errors`, for an unsupported message. */
function errorsOf(value: unknown): JsonObject[] {
  return objectsOf(value, WHATSAPP_INBOUND_LIMITS.errors).map((error) => {
    const code = ownField(error, 'code');
    return {
      code: typeof code === 'number' && Number.isSafeInteger(code) ? code : null,
      title: field(ownField(error, 'title')) ?? field(ownField(error, 'message')),
      details: field(ownField(child(error, 'error_data'), 'details')),
    };
  });
}

function contactCard(card: JsonObject): JsonObject {
  const name = child(card, 'name');
  const list = (key: string, fields: readonly string[]): JsonObject[] =>
    objectsOf(ownField(card, key), WHATSAPP_INBOUND_LIMITS.contactFields).map((entry) => Object.fromEntries(fields.map((f) => [f, field(ownField(entry, f))])));
  return {
    name: { formatted_name: field(ownField(name, 'formatted_name')), first_name: field(ownField(name, 'first_name')), last_name: field(ownField(name, 'last_name')) },
    phones: list('phones', ['phone', 'wa_id', 'type']),
    emails: list('emails', ['email', 'type']),
  };
}

interface Read {
  readonly text: string | null;
  readonly content: JsonObject;
  readonly attachments?: readonly ArrivingAttachment[];
  readonly answers?: string | null;
}

const unsupported = (message: JsonObject, value: JsonObject, originalType: string | null): Read => ({
  text: null,
  content: {
    type: 'unsupported',
    original_type: originalType,
    // Meta puts the reason on the message, or (for a payload it could not build) beside it.
    errors: errorsOf(ownField(message, 'errors') ?? ownField(value, 'errors')),
  },
});

/** The text, content and media of one message by its `type`. */
function readType(message: JsonObject, value: JsonObject): Read {
  const type = cut(ownField(message, 'type'), 64);
  if (type === 'text') {
    const body = cut(ownField(child(message, 'text'), 'body'), textChars);
    return body === null ? unsupported(message, value, type) : { text: body, content: { type } };
  }
  if ((MEDIA_TYPES as readonly (string | null)[]).includes(type) && type !== null) {
    const media = child(message, type);
    const mediaId = id(ownField(media, 'id'));
    if (mediaId === null) return unsupported(message, value, type);
    const caption = field(ownField(media, 'caption'));
    const filename = field(ownField(media, 'filename'));
    const mimeType = field(ownField(media, 'mime_type'));
    return {
      text: caption,
      content: { type, media: { id: mediaId, mime_type: mimeType, sha256: field(ownField(media, 'sha256')), filename, caption } },
      attachments: [{ mediaRef: mediaId, filename, contentType: mimeType }],
    };
  }
  if (type === 'location') {
    const location = child(message, 'location');
    const latitude = coordinate(ownField(location, 'latitude'), 90);
    const longitude = coordinate(ownField(location, 'longitude'), 180);
    if (latitude === null || longitude === null) return unsupported(message, value, type);
    return { text: null, content: { type, location: { latitude, longitude, name: field(ownField(location, 'name')), address: field(ownField(location, 'address')) } } };
  }
  if (type === 'contacts') {
    const cards = objectsOf(ownField(message, 'contacts'), WHATSAPP_INBOUND_LIMITS.contacts).map(contactCard);
    return cards.length === 0 ? unsupported(message, value, type) : { text: null, content: { type, contacts: cards } };
  }
  if (type === 'interactive') {
    const interactive = child(message, 'interactive');
    const kind = ownField(interactive, 'type');
    if (kind === 'button_reply' || kind === 'list_reply') {
      const reply = child(interactive, kind);
      const replyId = id(ownField(reply, 'id'));
      const title = field(ownField(reply, 'title'));
      if (replyId === null) return unsupported(message, value, `interactive.${kind}`);
      const button: Record<string, unknown> = { id: replyId, title };
      if (kind === 'list_reply') button['description'] = field(ownField(reply, 'description'));
      return { text: title, content: { type: kind, button } };
    }
    return unsupported(message, value, typeof kind === 'string' ? `interactive.${kind.slice(0, 64)}` : type);
  }
  if (type === 'button') {
    const button = child(message, 'button');
    const text = field(ownField(button, 'text'));
    return { text, content: { type, button: { payload: field(ownField(button, 'payload')), text } } };
  }
  if (type === 'reaction') {
    const reaction = child(message, 'reaction');
    const reacted = id(ownField(reaction, 'message_id'));
    // An empty or absent emoji is a reaction taken back.
    const emoji = field(ownField(reaction, 'emoji'));
    return { text: emoji, content: { type, reaction: { message_id: reacted, emoji } }, answers: reacted };
  }
  return unsupported(message, value, type === 'unsupported' ? null : type);
}

/**
 * One entry of `value.messages`, read; undefined when it names no sender or id that
 * can be trusted (nothing could be stored, or replied to, without them).
 */
export function readInboundMessage(message: JsonObject, value: JsonObject, phoneNumberId: string): WebhookInboundMessage | undefined {
  const from = ownField(message, 'from');
  const wamid = id(ownField(message, 'id'));
  if (typeof from !== 'string' || !WA_ID.test(from) || wamid === null) return undefined;
  const read = readType(message, value);
  const profile = objectsOf(ownField(value, 'contacts'), WHATSAPP_INBOUND_LIMITS.contacts).find((contact) => ownField(contact, 'wa_id') === from);
  const profileName = profile === undefined ? null : field(ownField(child(profile, 'profile'), 'name'));
  const context = id(ownField(child(message, 'context'), 'id'));
  return {
    phoneNumberId,
    from,
    at: timeOf(ownField(message, 'timestamp')),
    wamid,
    text: read.text,
    content: { ...read.content, profile_name: profileName },
    answers: context ?? read.answers ?? undefined,
    attachments: read.attachments ?? [],
  };
}

/** What the Cloud API door hands to app/receive-inbound.ts for one message. */
export function arrivingWhatsapp(message: WebhookInboundMessage, facts: { readonly receivedAt: number; readonly replyTo: string | undefined }): ArrivingMessage {
  return {
    channel: 'whatsapp',
    from: `+${message.from}`,
    to: message.phoneNumberId,
    text: message.text,
    receivedAt: facts.receivedAt,
    providerRef: message.wamid,
    content: message.content,
    ...(facts.replyTo === undefined ? {} : { replyTo: facts.replyTo }),
    ...(message.attachments.length === 0 ? {} : { attachments: message.attachments }),
  };
}
