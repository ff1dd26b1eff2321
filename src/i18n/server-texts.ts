import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import i18next, { type Resource, type ResourceKey, type TFunction } from 'i18next';
import type { KeywordTexts } from '../domain/inbound-keywords.ts';
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../domain/locale.ts';

// herald's own words to people outside the web application, in each of its languages:
// the public pages (subscription confirmation, unsubscribe, invalid links), the
// emails herald itself sends (invitations, password resets) and its default SMS keyword replies. The catalogues are JSON a
// translator edits, src/i18n/locales/<language>/<namespace>.json, read once when this
// module loads (at start, never per request) into one i18next instance. The interface's
// own error texts are never here: they are the contract's, exact in every language.

const LOCALES_DIR = join(import.meta.dirname, 'locales');

function readCatalogues(): Resource {
  const resources: Resource = {};
  for (const language of LOCALES) {
    const dir = join(LOCALES_DIR, language);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      (resources[language] ??= {})[file.slice(0, -'.json'.length)] = JSON.parse(readFileSync(join(dir, file), 'utf8')) as ResourceKey;
    }
  }
  return resources;
}

const resources = readCatalogues();
const instance = i18next.createInstance();
void instance.init({
  resources, lng: DEFAULT_LOCALE, fallbackLng: DEFAULT_LOCALE, supportedLngs: [...LOCALES], ns: Object.keys(resources[DEFAULT_LOCALE] ?? {}),
  initAsync: false, returnNull: false,
  // Callers escape what goes into HTML (http/recipient-page.ts escapeHtml); emails are plain text.
  interpolation: { escapeValue: false },
});

/** herald's default answers to STOP, START and HELP in `locale` (an account may set its own). */
export function defaultKeywordTexts(locale: Locale): KeywordTexts {
  const t = textsFor(locale, 'sms');
  return { stop: t('keywordReply.stop'), start: t('keywordReply.start'), help: t('keywordReply.help') };
}

/** The texts of one namespace in one language: `textsFor('es', 'pages')('expired.title')`. */
export function textsFor(locale: Locale, namespace: string): TFunction {
  return instance.getFixedT(locale, namespace);
}
