// The languages herald speaks to people (issue 24): its web application, its public
// pages and its own emails. English is the default wherever no language is known.

export const LOCALES = ['en', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export const isLocale = (value: unknown): value is Locale => (LOCALES as readonly unknown[]).includes(value);

/**
 * The first of herald's languages an Accept-Language header asks for, by its q-values
 * (`es-MX,es;q=0.9,en;q=0.8` → es); undefined when it names none of them. Only the
 * primary subtag is compared: herald has one Spanish and one English.
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (header === undefined) return undefined;
  const ranked = header.slice(0, 1000).split(',').slice(0, 50).map((part, index) => {
    const [range = '', ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { language: range.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), index };
  });
  ranked.sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.find((entry) => entry.q > 0 && isLocale(entry.language))?.language as Locale | undefined;
}
