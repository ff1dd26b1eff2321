// What every catalogue of herald's own texts must hold, in every language: the same keys,
// no empty text, the same {{placeholders}}, and each plural in every form the language's
// plural rules ask for (Intl.PluralRules: Spanish has `many` besides `one` and `other`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const LANGUAGES = ['en', 'es'] as const;
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

/** A catalogue's texts by dotted key. */
export function flatten(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof value === 'string') out.set(prefix, value);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      for (const [k, v] of flatten(inner, prefix === '' ? key : `${prefix}.${key}`)) out.set(k, v);
    }
  } else out.set(prefix, String(value));
  return out;
}

/** Every language's catalogues under `dir` (<dir>/<language>/<namespace>.json), flattened. */
export function readCatalogues(dir: string): Map<string, Map<string, Map<string, string>>> {
  const byLanguage = new Map<string, Map<string, Map<string, string>>>();
  for (const language of readdirSync(dir)) {
    const namespaces = new Map<string, Map<string, string>>();
    for (const file of readdirSync(join(dir, language)).filter((f) => f.endsWith('.json'))) {
      namespaces.set(file.slice(0, -'.json'.length), flatten(JSON.parse(readFileSync(join(dir, language, file), 'utf8'))));
    }
    byLanguage.set(language, namespaces);
  }
  return byLanguage;
}

const placeholders = (text: string): string => [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort().join(',');
const baseKey = (key: string): string => key.replace(PLURAL_SUFFIX, '');

/** Every problem with the catalogues under `dir`, in words; none when they are complete. */
export function catalogueProblems(dir: string): string[] {
  const problems: string[] = [];
  const catalogues = readCatalogues(dir);
  const languages = [...catalogues.keys()].sort();
  if (languages.join(',') !== [...LANGUAGES].sort().join(',')) problems.push(`${dir}: languages ${languages.join(',')}, expected ${LANGUAGES.join(',')}`);
  const english = catalogues.get('en') ?? new Map();
  for (const language of LANGUAGES) {
    const own = catalogues.get(language) ?? new Map<string, Map<string, string>>();
    const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
    const namespaces = new Set([...english.keys(), ...own.keys()]);
    for (const namespace of namespaces) {
      const texts = own.get(namespace);
      const reference = english.get(namespace);
      if (texts === undefined) { problems.push(`${language}/${namespace}.json is missing`); continue; }
      if (reference === undefined) { problems.push(`${language}/${namespace}.json has no English file`); continue; }
      for (const [key, text] of texts) {
        if (text.trim() === '') problems.push(`${language}/${namespace}: "${key}" is empty`);
      }
      const ownBases = new Set([...texts.keys()].map(baseKey));
      const referenceBases = new Set([...reference.keys()].map(baseKey));
      for (const key of referenceBases) if (!ownBases.has(key)) problems.push(`${language}/${namespace}: "${key}" is missing`);
      for (const key of ownBases) if (!referenceBases.has(key)) problems.push(`${language}/${namespace}: "${key}" is not in English`);
      for (const [key, text] of texts) {
        if (PLURAL_SUFFIX.test(key)) continue;
        const english = reference.get(key);
        if (english !== undefined && placeholders(english) !== placeholders(text)) {
          problems.push(`${language}/${namespace}: "${key}" has placeholders {${placeholders(text)}}, English has {${placeholders(english)}}`);
        }
      }
      // A plural is complete when every form the language's rules can pick is written.
      const plurals = new Set([...texts.keys()].filter((k) => PLURAL_SUFFIX.test(k)).map(baseKey));
      for (const key of plurals) {
        for (const category of categories) {
          if (!texts.has(`${key}_${category}`)) problems.push(`${language}/${namespace}: plural "${key}" lacks its "${category}" form`);
        }
      }
    }
  }
  return problems;
}
