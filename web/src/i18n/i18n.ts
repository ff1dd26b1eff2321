/// <reference types="vite/client" />
// The web application's languages: i18next with one catalogue file per language and page
// area (web/src/i18n/locales/<language>/<namespace>.json), all bundled, so a translator
// edits JSON and nothing is fetched at run time. The language is the user's choice
// (kept in the browser) or else the browser's own.
import i18next from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', es: 'Español' };
/** Where the user's own choice is kept (the detector reads it first). */
export const LANGUAGE_STORAGE_KEY = 'herald.language';

type Catalogue = Record<string, unknown>;
const files = import.meta.glob<Catalogue>('./locales/*/*.json', { eager: true, import: 'default' });

const resources: Record<string, Record<string, Catalogue>> = {};
for (const [path, catalogue] of Object.entries(files)) {
  const match = /\/locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
  if (match === null) continue;
  const [, language, namespace] = match as unknown as [string, string, string];
  (resources[language] ??= {})[namespace] = catalogue;
}

void i18next
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources,
    supportedLngs: [...LANGUAGES],
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    fallbackLng: 'en',
    defaultNS: 'common',
    ns: Object.keys(resources.en ?? {}),
    interpolation: { escapeValue: false }, // React escapes what it renders
    returnNull: false,
    detection: { order: ['localStorage', 'navigator'], lookupLocalStorage: LANGUAGE_STORAGE_KEY, caches: ['localStorage'] },
    react: { useSuspense: false },
  });

i18next.on('languageChanged', (language) => {
  document.documentElement.lang = language;
});
document.documentElement.lang = i18next.resolvedLanguage ?? 'en';

/** The language pages render in now ('en' or 'es'). */
export function currentLanguage(): Language {
  const language = i18next.resolvedLanguage;
  return language === 'es' ? 'es' : 'en';
}

/** Switches the application's language and remembers the choice in this browser. */
export async function chooseLanguage(language: Language): Promise<void> {
  await i18next.changeLanguage(language);
}

export { i18next };
