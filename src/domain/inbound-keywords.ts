import type { KeywordKind } from './inbound-message.ts';

// Opt-out by reply, as Twilio does it and in Spanish too: a message that is only one of
// these words (case, accents and surrounding spaces do not matter) is a keyword.

export const STANDARD_KEYWORDS: Readonly<Record<KeywordKind, readonly string[]>> = {
  stop: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'BAJA'],
  start: ['START', 'UNSTOP', 'YES', 'ALTA'],
  help: ['HELP', 'INFO', 'AYUDA'],
};

/** An account's own words besides the standard ones. */
export type AccountKeywords = Readonly<Partial<Record<KeywordKind, readonly string[]>>>;

/** The texts an account answers keywords with, sent as SMS from the number written to. */
export interface KeywordTexts {
  readonly stop: string;
  readonly start: string;
  readonly help: string;
}

export const DEFAULT_KEYWORD_TEXTS: KeywordTexts = {
  stop: 'You have been unsubscribed and will receive no more messages from this number. Reply START to resubscribe.',
  start: 'You have been resubscribed. Reply STOP to unsubscribe.',
  help: 'Reply STOP to unsubscribe, START to resubscribe.',
};

/** The longest keyword an account may add, and how many per kind. */
export const MAX_KEYWORD_LENGTH = 20;
export const MAX_KEYWORDS_PER_KIND = 10;

/** `" Bajá "` → `"BAJA"`: what a message is compared as. */
export function keywordForm(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').trim().toUpperCase();
}

/** The keyword a message is, or null when it is anything else. Long texts are never keywords (no work on them). */
export function keywordOf(text: string | null, own: AccountKeywords = {}): KeywordKind | null {
  if (text === null || text.length > MAX_KEYWORD_LENGTH * 4) return null;
  const form = keywordForm(text);
  if (form === '') return null;
  for (const kind of ['stop', 'start', 'help'] as const) {
    if (STANDARD_KEYWORDS[kind].includes(form)) return kind;
    if ((own[kind] ?? []).some((word) => keywordForm(word) === form)) return kind;
  }
  return null;
}
