// herald's own texts outside the web application (src/i18n/locales): every key in English
// and Spanish, the same placeholders, every plural form; and the module reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogueProblems } from './catalogue-check.ts';
import { textsFor } from '../../src/i18n/server-texts.ts';
import { localeFromAcceptLanguage } from '../../src/domain/locale.ts';

const LOCALES = new URL('../../src/i18n/locales/', import.meta.url).pathname;

test('every server catalogue holds every key in English and Spanish, with the same placeholders', () => {
  assert.deepEqual(catalogueProblems(LOCALES), []);
});

test('a text is read from the catalogue of the language asked for', () => {
  assert.deepEqual([textsFor('en', 'pages')('invalidLink.heading'), textsFor('es', 'pages')('invalidLink.heading')], ['This link is not valid', 'Este enlace no es válido']);
});

test('Accept-Language picks herald\'s language with the highest q-value, and none when it names neither', () => {
  assert.deepEqual(
    ['fr-FR,es;q=0.8,en;q=0.9', 'es-AR', 'de, fr;q=0.5', 'en;q=0, es;q=0.1', undefined].map(localeFromAcceptLanguage),
    ['en', 'es', undefined, 'es', undefined],
  );
});
