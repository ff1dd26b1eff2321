import { test } from 'node:test';
import assert from 'node:assert/strict';
import { templateEngineFor, type CompiledTemplate, type TemplateMode } from '../../src/domain/email-template.ts';
import { DEFAULT_LIMITS } from '../../src/domain/request-limits.ts';

const engine = templateEngineFor(DEFAULT_LIMITS, 1024 * 1024);
const compileTemplate = (source: string, mode: TemplateMode) => engine.compile(source, mode);
const renderSubject = (subject: string, variables: Record<string, string>) => engine.renderSubject(subject, variables);

function compiled(source: string, mode: 'html' | 'text'): CompiledTemplate {
  const result = compileTemplate(source, mode);
  assert.equal(result.ok, true, `expected ${JSON.stringify(source)} to compile`);
  if (!result.ok) throw new Error('unreachable');
  return result.value;
}

function render(source: string, mode: 'html' | 'text', variables: Record<string, string>): string {
  return compiled(source, mode).render(variables);
}

const nasty = `<script>&"'` + '`=';

test('html mode escapes every HTML-special character of a value', () => {
  assert.equal(render('<p>{{v}}</p>', 'html', { v: nasty }), '<p>&lt;script&gt;&amp;&quot;&#x27;&#x60;&#x3D;</p>');
});

test('text mode inserts a value raw', () => {
  assert.equal(render('v={{v}}', 'text', { v: nasty }), `v=<script>&"'` + '`=');
});

test('html mode keeps newlines of a value as they are', () => {
  assert.equal(render('{{v}}', 'html', { v: 'a\nb' }), 'a\nb');
});

test('template text outside the placeholders is left untouched', () => {
  assert.equal(render('<b>Hi</b> & bye', 'html', {}), '<b>Hi</b> & bye');
});

test('several variables are substituted, with spaces inside the braces allowed', () => {
  assert.equal(render('Hello {{ first }} {{last}}!', 'html', { first: 'Ada', last: 'Lovelace' }), 'Hello Ada Lovelace!');
});

test('a bracketed name reaches a key with a space in it', () => {
  assert.equal(render('{{[full name]}}', 'text', { 'full name': 'Ada L' }), 'Ada L');
});

test('a missing variable renders as empty text', () => {
  assert.equal(render('Hi {{name}}.', 'html', {}), 'Hi .');
});

test('a comment renders as nothing', () => {
  assert.equal(render('a{{! note }}b', 'html', {}), 'ab');
});

test('if block renders its body when the variable is non-empty', () => {
  assert.equal(render('{{#if vip}}VIP {{name}}{{/if}}', 'html', { vip: 'yes', name: 'Ada' }), 'VIP Ada');
});

test('if block renders nothing when the variable is the empty string', () => {
  assert.equal(render('{{#if vip}}VIP{{/if}}', 'html', { vip: '' }), '');
});

test('if block renders its else branch when the variable is missing', () => {
  assert.equal(render('{{#if vip}}VIP{{else}}regular{{/if}}', 'html', {}), 'regular');
});

test('else if chains pick the first present variable', () => {
  assert.equal(render('{{#if a}}A{{else if b}}B{{else}}C{{/if}}', 'html', { b: '1' }), 'B');
});

test('unless block renders its body when the variable is missing', () => {
  assert.equal(render('{{#unless paid}}Please pay{{/unless}}', 'html', {}), 'Please pay');
});

test('a __proto__ variable is rendered as data', () => {
  const variables = JSON.parse('{"__proto__": "<proto>"}') as Record<string, string>;
  assert.equal(render('{{__proto__}}', 'html', variables), '&lt;proto&gt;');
});

test('a constructor variable is rendered as data', () => {
  assert.equal(render('{{constructor}}', 'text', { constructor: 'C' }), 'C');
});

test('constructor, toString and __proto__ without variables render empty and log nothing', (t) => {
  const error = t.mock.method(console, 'error', () => {});
  const warn = t.mock.method(console, 'warn', () => {});
  const log = t.mock.method(console, 'log', () => {});
  assert.equal(render('[{{constructor}}{{toString}}{{__proto__}}{{hasOwnProperty}}]', 'html', {}), '[]');
  assert.equal(error.mock.callCount() + warn.mock.callCount() + log.mock.callCount(), 0);
});

test('an if block on constructor without such variable takes the else branch', () => {
  assert.equal(render('{{#if constructor}}yes{{else}}no{{/if}}', 'html', {}), 'no');
});

test('names of built-in helpers other than if and unless are plain variables', () => {
  assert.equal(render('{{each}}/{{with}}/{{log}}/{{lookup}}', 'text', { each: 'e', with: 'w', log: 'l', lookup: 'k' }), 'e/w/l/k');
});

test('a non-string value is ignored as if missing', () => {
  const variables = { name: (() => 'called') as unknown as string };
  assert.equal(render('[{{name}}]', 'text', variables), '[]');
});

const rejected: ReadonlyArray<readonly [string, string]> = [
  ['unclosed mustache', 'Hello {{name'],
  ['unclosed block', '{{#if a}}x'],
  ['mismatched block close', '{{#if a}}x{{/unless}}'],
  ['triple-stash', '{{{name}}}'],
  ['ampersand unescaped mustache', '{{&name}}'],
  ['helper call with an argument', '{{foo bar}}'],
  ['hash argument', '{{foo key=1}}'],
  ['slash path', '{{a/b}}'],
  ['path ending in a dot', '{{contact.}}'],
  ['this', '{{this}}'],
  ['this-prefixed path', '{{this.name}}'],
  ['dot-slash path', '{{./name}}'],
  ['parent path', '{{../name}}'],
  ['@data variable', '{{@root}}'],
  ['string literal', '{{"text"}}'],
  ['number literal', '{{1}}'],
  ['sub-expression', '{{(name)}}'],
  ['partial', '{{> p}}'],
  ['partial block', '{{#> p}}x{{/p}}'],
  ['each block', '{{#each items}}x{{/each}}'],
  ['with block', '{{#with a}}x{{/with}}'],
  ['section on a variable', '{{#name}}x{{/name}}'],
  ['inverted section on a variable', '{{^name}}x{{/name}}'],
  ['if without a parameter', '{{#if}}x{{/if}}'],
  ['if with two parameters', '{{#if a b}}x{{/if}}'],
  ['if with a hash', '{{#if a includeZero=true}}x{{/if}}'],
  ['if on a this-prefixed path', '{{#if this.a}}x{{/if}}'],
  ['if on a sub-expression', '{{#if (a)}}x{{/if}}'],
  ['if with block params', '{{#if a as |b|}}{{b}}{{/if}}'],
  ['triple-stash inside an if block', '{{#if a}}{{{b}}}{{/if}}'],
  ['each in an else chain', '{{#if a}}x{{else each b}}y{{/if}}'],
  ['decorator', '{{* d}}'],
  ['inline partial decorator block', '{{#*inline "p"}}x{{/inline}}'],
  ['raw block', '{{{{raw}}}}x{{{{/raw}}}}'],
  ['variable named if', '{{if}}'],
  ['variable named unless', '{{[unless]}}'],
];

for (const [what, source] of rejected) {
  test(`compile rejects ${what} with variableSyntax`, () => {
    const result = compileTemplate(source, 'html');
    assert.equal(result.ok ? 'accepted' : result.rejection.code, 'variableSyntax');
  });
}

test('text mode rejects triple-stash too', () => {
  assert.deepEqual(compileTemplate('{{{name}}}', 'text'), { ok: false, rejection: { code: 'variableSyntax', detail: 'line 1, column 1: {{{name}} is not a placeholder herald knows' } });
});

test('a dotted path is one variable named with its dots', () => {
  assert.equal(render('Hi {{contact.name}} from {{contact.attributes.city}}', 'html', { 'contact.name': 'Ana', 'contact.attributes.city': 'Lyon' }), 'Hi Ana from Lyon');
});

test('a conditional on a dotted path tests that variable', () => {
  const source = '{{#if contact.attributes.plan}}plan {{contact.attributes.plan}}{{else}}no plan{{/if}}';
  assert.deepEqual([render(source, 'text', { 'contact.attributes.plan': 'pro' }), render(source, 'text', {})], ['plan pro', 'no plan']);
});

test('a bracketed part of a path may hold spaces', () => {
  assert.equal(render('{{contact.attributes.[first name]}}', 'text', { 'contact.attributes.first name': 'Ana' }), 'Ana');
});

test('a block never closed is named with its line and column', () => {
  assert.deepEqual(compileTemplate('<p>\n  Hi {{contact.name}}\n  {{#if contact.attributes.plan}}pro\n</p>', 'html'),
    { ok: false, rejection: { code: 'variableSyntax', detail: 'line 3, column 3: {{#if}} is never closed' } });
});

test('a close of the wrong block names both tags', () => {
  assert.deepEqual(compileTemplate('x{{#if a}}y\n{{/unless}}', 'html'),
    { ok: false, rejection: { code: 'variableSyntax', detail: 'line 2, column 1: {{/unless}} does not close {{#if}} of line 1, column 2' } });
});

test('a close without a block says it closes nothing', () => {
  assert.deepEqual(compileTemplate('a {{/if}}', 'html'), { ok: false, rejection: { code: 'variableSyntax', detail: 'line 1, column 3: {{/if}} closes no block' } });
});

test('an else outside a block says so', () => {
  assert.deepEqual(compileTemplate('{{else}}', 'html'), { ok: false, rejection: { code: 'variableSyntax', detail: 'line 1, column 1: {{else}} is outside any {{#if}} or {{#unless}}' } });
});

test('a second else in one block is refused where it stands', () => {
  assert.deepEqual(compileTemplate('{{#if a}}x{{else}}y{{else}}z{{/if}}', 'html'),
    { ok: false, rejection: { code: 'variableSyntax', detail: 'line 1, column 20: {{else}} is not allowed here in {{#if}} of line 1, column 1' } });
});

test('compile accepts a valid template', () => {
  assert.equal(compileTemplate('Hi {{name}}{{#if x}}!{{/if}}', 'html').ok, true);
});

test('compile rejects an unclosed mustache', () => {
  assert.deepEqual(compileTemplate('Hi {{name', 'html'), { ok: false, rejection: { code: 'variableSyntax', detail: 'line 1, column 4: {{name is never closed with }}' } });
});

test('renderSubject fills variables without HTML escaping', () => {
  assert.deepEqual(renderSubject('Order {{id}} for {{who}}', { id: '42', who: 'Tom & <Jerry>' }), {
    ok: true,
    value: 'Order 42 for Tom & <Jerry>',
  });
});

test('renderSubject turns line breaks into single spaces', () => {
  assert.deepEqual(renderSubject('A{{v}}B', { v: 'x\r\ny\nz' }), { ok: true, value: 'Ax y zB' });
});

test('renderSubject of a subject without placeholders returns it unchanged', () => {
  assert.deepEqual(renderSubject('Welcome!', {}), { ok: true, value: 'Welcome!' });
});

test('renderSubject rejects a malformed subject with variableSyntax', () => {
  assert.deepEqual(renderSubject('Hi {{name', {}), { ok: false, rejection: { code: 'variableSyntax', detail: 'line 1, column 4: {{name is never closed with }}' } });
});

test('compiling the same source and mode twice returns the cached template', () => {
  const first = compiled('cached {{x}}', 'html');
  const second = compiled('cached {{x}}', 'html');
  assert.equal(second, first);
  assert.equal(second.render({ x: '<1>' }), 'cached &lt;1&gt;');
  assert.equal(first.render({ x: '<1>' }), 'cached &lt;1&gt;');
});

test('the cache keys on mode, so text and html of one source render differently', () => {
  assert.equal(render('{{x}}', 'html', { x: '&' }), '&amp;');
  assert.equal(render('{{x}}', 'text', { x: '&' }), '&');
});

test('the cache evicts its least recently used entry once its bytes are spent', () => {
  const small = templateEngineFor(DEFAULT_LIMITS, 4096);
  const first = small.compile('evict-me {{x}}', 'text');
  for (let i = 0; i < 20; i++) small.compile(`filler ${i} {{x}}`, 'text');
  const again = small.compile('evict-me {{x}}', 'text');
  assert.ok(first.ok && again.ok);
  assert.notEqual(again.value, first.value);
  assert.equal(again.value.render({ x: '1' }), 'evict-me 1');
  assert.ok(small.cacheUsage().bytes <= 4096);
});
