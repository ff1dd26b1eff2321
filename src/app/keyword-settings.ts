import { invalidField } from '../domain/admin-input.ts';
import { keywordForm, MAX_KEYWORDS_PER_KIND, MAX_KEYWORD_LENGTH, STANDARD_KEYWORDS, type AccountKeywords } from '../domain/inbound-keywords.ts';
import { KEYWORD_KINDS, type KeywordKind } from '../domain/inbound-message.ts';
import { ok, type Result } from '../domain/result.ts';
import { findKeywordSettings, keywordText, saveKeywordSettings, type KeywordSettings } from '../store/keyword-settings.ts';
import type { AppDeps } from './deps.ts';

// GET and PUT /v1/sms/keywords: the account's own opt-out, opt-in and help words beside
// the standard ones, and the texts it answers them with.

export const MAX_KEYWORD_TEXT = 320;

export interface KeywordSettingsView {
  readonly standard: Readonly<Record<KeywordKind, readonly string[]>>;
  readonly keywords: Readonly<Record<KeywordKind, readonly string[]>>;
  /** The texts in force: the account's, or the default where it set none. */
  readonly texts: Readonly<Record<KeywordKind, string>>;
}

export interface KeywordSettingsBody {
  readonly keywords?: Partial<Record<KeywordKind, readonly string[]>>;
  readonly texts?: Partial<Record<KeywordKind, string | null>>;
}

function viewOf(settings: KeywordSettings): KeywordSettingsView {
  return {
    standard: STANDARD_KEYWORDS,
    keywords: { stop: settings.keywords.stop ?? [], start: settings.keywords.start ?? [], help: settings.keywords.help ?? [] },
    texts: { stop: keywordText(settings, 'stop'), start: keywordText(settings, 'start'), help: keywordText(settings, 'help') },
  };
}

export async function getKeywordSettings(deps: Pick<AppDeps, 'db'>, accountId: string): Promise<KeywordSettingsView> {
  return viewOf((await findKeywordSettings(deps.db, accountId)) ?? { keywords: {}, texts: { stop: null, start: null, help: null } });
}

/** Words of letters and digits; none may be another kind's word, standard or the account's, so a message means one thing. */
function checkKeywords(given: Partial<Record<KeywordKind, readonly string[]>>): Result<AccountKeywords> {
  const taken = new Map<string, KeywordKind>();
  for (const kind of KEYWORD_KINDS) for (const word of STANDARD_KEYWORDS[kind]) taken.set(word, kind);
  const result: Partial<Record<KeywordKind, string[]>> = {};
  for (const kind of KEYWORD_KINDS) {
    const words = given[kind] ?? [];
    if (words.length > MAX_KEYWORDS_PER_KIND) return invalidField(`keywords.${kind}`, `at most ${MAX_KEYWORDS_PER_KIND} words`);
    const kept: string[] = [];
    for (const word of words) {
      const form = keywordForm(word);
      if (!/^[A-Z0-9]+$/.test(form) || form.length > MAX_KEYWORD_LENGTH) return invalidField(`keywords.${kind}`, `each word: 1 to ${MAX_KEYWORD_LENGTH} letters or digits, no spaces`);
      const other = taken.get(form);
      if (other !== undefined && !(other === kind && !kept.includes(form))) return invalidField(`keywords.${kind}`, `${form} is already a ${other} keyword`);
      taken.set(form, kind);
      kept.push(form);
    }
    result[kind] = kept;
  }
  return ok(result);
}

export async function putKeywordSettings(deps: Pick<AppDeps, 'db' | 'clock'>, accountId: string, body: KeywordSettingsBody): Promise<Result<KeywordSettingsView>> {
  const keywords = checkKeywords(body.keywords ?? {});
  if (!keywords.ok) return keywords;
  const texts = { stop: body.texts?.stop ?? null, start: body.texts?.start ?? null, help: body.texts?.help ?? null };
  for (const kind of KEYWORD_KINDS) {
    const text = texts[kind];
    if (text !== null && (text.trim() === '' || text.length > MAX_KEYWORD_TEXT)) return invalidField(`texts.${kind}`, `1 to ${MAX_KEYWORD_TEXT} characters, or null for the default`);
  }
  const settings: KeywordSettings = { keywords: keywords.value, texts };
  await saveKeywordSettings(deps.db, accountId, settings, deps.clock());
  return ok(viewOf(settings));
}
