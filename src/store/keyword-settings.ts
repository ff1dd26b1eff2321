import type { AccountKeywords, KeywordTexts } from '../domain/inbound-keywords.ts';
import { DEFAULT_LOCALE, type Locale } from '../domain/locale.ts';
import { defaultKeywordTexts } from '../i18n/server-texts.ts';
import type { Executor } from './database.ts';

/** An account's keywords besides the standard ones, and the texts it answers them with (null: the default). */
export interface KeywordSettings {
  readonly keywords: AccountKeywords;
  readonly texts: { readonly [K in keyof KeywordTexts]: string | null };
}

export async function findKeywordSettings(db: Executor, accountId: string): Promise<KeywordSettings | undefined> {
  const row = await db.selectFrom('accounts').select(['sms_keywords', 'sms_stop_text', 'sms_start_text', 'sms_help_text'])
    .where('id', '=', accountId).executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    keywords: row.sms_keywords === null ? {} : (JSON.parse(row.sms_keywords) as AccountKeywords),
    texts: { stop: row.sms_stop_text, start: row.sms_start_text, help: row.sms_help_text },
  };
}

export async function saveKeywordSettings(db: Executor, accountId: string, settings: KeywordSettings, now: number): Promise<void> {
  await db.updateTable('accounts').set({
    sms_keywords: JSON.stringify(settings.keywords), sms_stop_text: settings.texts.stop, sms_start_text: settings.texts.start,
    sms_help_text: settings.texts.help, updated_at: now,
  }).where('id', '=', accountId).execute();
}

/** The text an account answers `kind` with: its own, else herald's default in `locale`. */
export const keywordText = (settings: KeywordSettings, kind: keyof KeywordTexts, locale: Locale = DEFAULT_LOCALE): string =>
  settings.texts[kind] ?? defaultKeywordTexts(locale)[kind];
