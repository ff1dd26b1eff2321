import { Buffer } from 'node:buffer';
import type { Channel } from './account.ts';
import { SESSION_WINDOW_MS } from './whatsapp-session-request.ts';

// A conversation is everything between an account and one person: what herald sent to
// them and what they wrote back, on every channel. The person is named the way inbound
// messages name a sender: `+` and digits for a phone, a lower-cased address for email.

/** Conversations on one page of GET /v1/conversations, by default and at most. */
export const CONVERSATION_PAGE = 50;
export const CONVERSATION_PAGE_MAX = 100;
/** Items of a thread on one page of GET /v1/conversations/:person: the latest 200, older ones by cursor. */
export const THREAD_PAGE = 200;
/** Characters of an email's text or a list row's last text shown: a preview, the whole message is one link away. */
export const PREVIEW_CHARS = 1000;
export const LAST_TEXT_CHARS = 140;

const PHONE = /^\+[0-9]{6,15}$/;
// An address as inbound email names its sender; the page's links carry it URL-encoded.
// No control characters: PostgreSQL refuses a NUL in a text parameter (a 500, not a 400).
const EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]{1,255}$/u;

/** The person a path names, normalised (email lower-cased); null when it is neither a number nor an address. */
export function parsePerson(text: string): string | null {
  const trimmed = text.trim();
  if (PHONE.test(trimmed)) return trimmed;
  if (EMAIL.test(trimmed) && trimmed.length <= 320) return trimmed.toLowerCase();
  return null;
}

export const isPhone = (person: string): boolean => person.startsWith('+');

/**
 * The recipients herald's messages to the person carry: SMS keeps the `+`, WhatsApp
 * destinations are stored as digits without it (domain/whatsapp-request.ts).
 */
export function recipientsOf(person: string): string[] {
  return isPhone(person) ? [person, person.slice(1)] : [person];
}

/** When the person's WhatsApp customer-service window closes (epoch ms), or null when it is not open at `now`. */
export function windowOpenUntil(lastInboundAt: number | undefined, now: number): number | null {
  if (lastInboundAt === undefined) return null;
  const until = lastInboundAt + SESSION_WINDOW_MS;
  return until > now ? until : null;
}

/** The channel the page offers a reply on: a WhatsApp session message while the window is open, else SMS to a number, email to an address. */
export function replyChannel(person: string, openUntil: number | null): Channel {
  if (openUntil !== null) return 'whatsapp';
  return isPhone(person) ? 'sms' : 'email';
}

/** `text` cut to `max` characters (code points), with an ellipsis when cut. */
export function preview(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Where a page of the list or a thread starts: after (older than) this point, in (at, key) order. */
export interface TimeCursor {
  readonly at: number;
  readonly key: string;
}

/** Opaque to clients: `<at ms>_<key as base64url>` (a person may hold `_`). */
export function encodeTimeCursor(cursor: TimeCursor): string {
  return `${cursor.at}_${Buffer.from(cursor.key, 'utf8').toString('base64url')}`;
}

export function decodeTimeCursor(text: string): TimeCursor | null {
  const match = /^([0-9]{1,15})_([A-Za-z0-9_-]{1,600})$/.exec(text);
  if (match === null) return null;
  const key = Buffer.from(match[2] ?? '', 'base64url').toString('utf8');
  // herald's cursors name a person or a UUID: never a control character nor broken UTF-8.
  return key === '' || /[\p{Cc}\uFFFD]/u.test(key) ? null : { at: Number(match[1]), key };
}
