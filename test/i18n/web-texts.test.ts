// The web application speaks English and Spanish (issue 24): every text a page shows comes
// from a catalogue (web/src/i18n/locales/<language>/<namespace>.json), both languages hold
// every key, and every key a page asks for exists. The interface's own error texts are
// herald's answers, shown as herald wrote them, and are not in these catalogues.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { catalogueProblems, flatten, readCatalogues } from './catalogue-check.ts';

const WEB = new URL('../../web/src/', import.meta.url).pathname;
const LOCALES = join(WEB, 'i18n', 'locales');

// Attributes that never hold words a person reads.
const NOT_TEXT = new Set([
  'className', 'to', 'href', 'src', 'type', 'id', 'name', 'role', 'key', 'autoComplete', 'inputMode', 'method',
  'rel', 'target', 'htmlFor', 'lang', 'dir', 'pattern', 'accept', 'variant', 'size', 'mode', 'status', 'tone',
  'aria-live', 'aria-hidden', 'aria-current', 'aria-haspopup', 'aria-controls', 'aria-describedby', 'aria-labelledby',
  'aria-sort', 'aria-expanded', 'aria-invalid', 'aria-atomic', 'aria-relevant', 'aria-busy', 'aria-modal',
  'form', 'wrap', 'spellCheck', 'enterKeyHint', 'translate', 'scope', 'align', 'loading', 'decoding', 'referrerPolicy',
  'dateTime', 'min', 'max', 'step', 'width', 'height', 'viewBox', 'd', 'fill', 'stroke', 'xmlns', 'kind', 'channel',
  'placement', 'gutter', 'sameWidth', 'unmountOnHide', 'data-testid', 'defaultValue', 'value', 'path', 'end', 'field',
  'dataKey', 'nameKey', 'wrapperClassName', 'stackId', 'layout', 'basename', 'hintId', 'errorId', 'aria-errormessage',
  // <Trans i18nKey> holds a catalogue key, not text.
  'i18nKey',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.tsx') || name.endsWith('.ts') ? [path] : [];
  });
}

// Names that are the same in every language.
const AS_WRITTEN = new Set(['herald', 'SMS', 'WhatsApp', 'SMTP', 'API', 'DKIM', 'SPF', 'DMARC', 'MX', 'CSV', 'JSON', 'URL', 'ID']);
const hasWords = (text: string): boolean => /\p{L}{2,}/u.test(text) && !AS_WRITTEN.has(text.trim());

/** The hard-coded texts of a page: JSX text, text attributes, and string literals rendered from JSX. */
function hardCodedTexts(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const literal = (node: ts.Node | undefined): void => {
    if (node === undefined) return;
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && hasWords(node.text)) found.push(node.text);
    else if (ts.isTemplateExpression(node) && hasWords(node.head.text + node.templateSpans.map((s) => s.literal.text).join(''))) found.push(node.getText());
    else if (ts.isConditionalExpression(node)) { literal(node.whenTrue); literal(node.whenFalse); }
    else if (ts.isBinaryExpression(node) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.PlusToken].includes(node.operatorToken.kind)) { literal(node.left); literal(node.right); }
    else if (ts.isParenthesizedExpression(node)) literal(node.expression);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node) && hasWords(node.text)) found.push(node.text.trim());
    if (ts.isJsxAttribute(node)) {
      const name = node.name.getText();
      if (!NOT_TEXT.has(name) && node.initializer !== undefined) {
        if (ts.isStringLiteral(node.initializer)) literal(node.initializer);
        else if (ts.isJsxExpression(node.initializer)) literal(node.initializer.expression);
      }
    }
    if (ts.isJsxExpression(node) && !ts.isJsxAttribute(node.parent)) literal(node.expression);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The keys a file asks for: t('key') or t('ns:key'), the namespace of its useTranslation('ns') by default. */
function requestedKeys(file: string): { namespace: string; key: string; plural: boolean }[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const defaultNamespace = /useTranslation\(\s*\[?\s*'([\w-]+)'/.exec(text)?.[1] ?? 'common';
  const keys: { namespace: string; key: string; plural: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText();
      const [first, second] = node.arguments;
      if ((callee === 't' || callee.endsWith('.t')) && first !== undefined && ts.isStringLiteral(first)) {
        const [namespace, key] = first.text.includes(':') ? first.text.split(':', 2) as [string, string] : [defaultNamespace, first.text];
        const plural = second !== undefined && ts.isObjectLiteralExpression(second) && second.properties.some((p) => p.name?.getText() === 'count');
        keys.push({ namespace, key, plural });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return keys;
}

const files = sourceFiles(WEB).filter((f) => !f.includes(`${join('i18n', 'locales')}`));

test('every catalogue holds every key in English and Spanish, with the same placeholders and every plural form', () => {
  assert.deepEqual(catalogueProblems(LOCALES), []);
});

test('every key a page asks for is in the English catalogue', () => {
  const english = readCatalogues(LOCALES).get('en') ?? new Map();
  const missing: string[] = [];
  for (const file of files) {
    for (const { namespace, key, plural } of requestedKeys(file)) {
      const texts = english.get(namespace);
      const present = texts !== undefined && (texts.has(key) || (plural && texts.has(`${key}_one`) && texts.has(`${key}_other`)));
      if (!present) missing.push(`${relative(WEB, file)}: ${namespace}:${key}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('no page shows a hard-coded text', () => {
  const found: string[] = [];
  for (const file of files) {
    const name = relative(WEB, file);
    for (const text of hardCodedTexts(file)) found.push(`${name}: ${JSON.stringify(text)}`);
  }
  assert.deepEqual(found, []);
});

test('the catalogue reader flattens nested keys', () => {
  assert.deepEqual([...flatten({ a: { b: 'x', c: { d: 'y' } }, e: 'z' })], [['a.b', 'x'], ['a.c.d', 'y'], ['e', 'z']]);
});
