import type { KeywordKind } from './inbound-message.ts';
import type { Locale } from './locale.ts';

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

/** The standard words that are Spanish: a person who wrote one gets herald's default answer in Spanish. */
const SPANISH_KEYWORDS: readonly string[] = ['BAJA', 'ALTA', 'AYUDA'];

/** The language of herald's default answer to a keyword message: Spanish for BAJA, ALTA, AYUDA; else English. */
export function keywordLocale(text: string | null): Locale {
  return text !== null && SPANISH_KEYWORDS.includes(keywordForm(text)) ? 'es' : 'en';
}

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
