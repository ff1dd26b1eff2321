import { test } from 'node:test';
import assert from 'node:assert/strict';
import Handlebars from 'handlebars';
import { createTemplateEngine, type TemplateMode } from '../../src/domain/email-template.ts';

// herald's template scanner against the Handlebars 4 compiler it replaces: for every
// template here, both accept or both refuse, and an accepted one renders to the same text
// with the same variables. The oracle is the previous implementation, kept verbatim.

const env = Handlebars.create();
const HELPER_NAMES: ReadonlySet<string> = new Set(['if', 'unless']);
const KNOWN_HELPERS = { if: true, unless: true, each: false, with: false, log: false, lookup: false, helperMissing: false, blockHelperMissing: false };
const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

// A dotted path of plain IDs (`a.b`) is herald's one variable named "a.b": the oracle makes
// it one part, as the bracket form `{{[a.b]}}` would, before Handlebars compiles it.
function isSimplePath(node: hbs.AST.Node | undefined): boolean {
  if (node === undefined || node.type !== 'PathExpression') return false;
  const path = node as hbs.AST.PathExpression;
  const name = path.parts.join('.');
  if (path.parts.length === 0 || path.original !== name || path.depth !== 0 || path.data || HELPER_NAMES.has(name)) return false;
  path.parts = [name];
  return true;
}
const hasNoHash = (node: { hash?: hbs.AST.Hash }): boolean => node.hash === undefined || node.hash.pairs.length === 0;
function isAllowedProgram(program: hbs.AST.Program | undefined): boolean {
  if (program === undefined) return true;
  if (program.blockParams !== undefined && program.blockParams.length > 0) return false;
  return program.body.every(isAllowedStatement);
}
function isAllowedStatement(node: hbs.AST.Node): boolean {
  switch (node.type) {
    case 'ContentStatement':
    case 'CommentStatement':
      return true;
    case 'MustacheStatement': {
      const m = node as hbs.AST.MustacheStatement;
      return m.escaped && isSimplePath(m.path) && m.params.length === 0 && hasNoHash(m);
    }
    case 'BlockStatement': {
      const b = node as hbs.AST.BlockStatement;
      const helper = b.path.type === 'PathExpression' && b.path.parts.length === 1 ? b.path.original : '';
      return HELPER_NAMES.has(helper) && b.params.length === 1 && isSimplePath(b.params[0]) && hasNoHash(b) && isAllowedProgram(b.program) && isAllowedProgram(b.inverse);
    }
    default:
      return false;
  }
}

/** The previous implementation: a string when the template compiles, null when it was refused. */
function handlebarsRender(source: string, mode: TemplateMode, variables: Record<string, string>): string | null {
  try {
    const ast = env.parse(source);
    if (!isAllowedProgram(ast)) return null;
    const template = env.compile<Record<string, string>>(ast, { noEscape: mode === 'text', strict: false, knownHelpersOnly: true, knownHelpers: KNOWN_HELPERS });
    const context: Record<string, string> = Object.create(null);
    for (const [key, value] of Object.entries(variables)) context[key] = value;
    return template(context, RUNTIME_OPTIONS);
  } catch {
    return null;
  }
}

const engine = createTemplateEngine({
  template: { maxLength: 1_000_000, maxPlaceholders: 100_000, maxDepth: 1000 },
  maxSubjectLength: 1_000_000,
  maxRenderedLength: 100_000_000,
  cacheBytes: 1_000_000,
});

function heraldRender(source: string, mode: TemplateMode, variables: Record<string, string>): string | null {
  const compiled = engine.compile(source, mode);
  if (!compiled.ok) {
    assert.equal(compiled.rejection.code, 'variableSyntax', `${JSON.stringify(source)}: ${compiled.rejection.code}`);
    return null;
  }
  return compiled.value.render(variables);
}

/** Whether the template was accepted (by both). */
function assertSame(source: string, variables: Record<string, string>): boolean {
  let accepted = false;
  for (const mode of ['html', 'text'] as const) {
    const rendered = heraldRender(source, mode, variables);
    assert.equal(rendered, handlebarsRender(source, mode, variables), `${mode} ${JSON.stringify(source)} ${JSON.stringify(variables)}`);
    accepted = rendered !== null;
  }
  return accepted;
}

const VARIABLES: readonly Record<string, string>[] = [
  {},
  { a: 'A', b: 'B', c: 'C', name: '<Ada & "Bob">', 'full name': 'Ada L', this: 'T', else: 'E', '': 'empty key', 'a.b': 'AB', 'contact.name': 'Ana' },
  { a: '', b: 'x', c: '' },
];

const CORPUS: readonly string[] = [
  '', 'plain text', 'Hi {{name}}!', '{{ name }}', '{{~name~}}', '  {{~name}}  ', 'a  {{~ name ~}}  b',
  '{{[full name]}}', '{{[this]}}', '{{[else]}}', '{{[]}}', '{{[a\\]b]}}', '{{[a\\\\]}}', '{{[a\nb]}}', '{{[if]}}', '{{[unless]}}',
  '{{this}}', '{{this.a}}', '{{a.b}}', '{{a/b}}', '{{../a}}', '{{./a}}', '{{@root}}', '{{.}}', '{{..}}',
  '{{true}}', '{{false}}', '{{null}}', '{{undefined}}', '{{1}}', '{{-1}}', '{{1.5}}', '{{1a}}', '{{truex}}', '{{nullish}}', '{{-}}', '{{a-b}}', '{{a$b}}', '{{a:b}}', '{{a?}}',
  '{{a}}}', '{{a}x}}', '{{a }}}', '{{a~}}}', '{{a ~ }}', '{{a', 'a}}', '{{}}', '{{ }}', '{{~}}', '{{a b}}', '{{a=1}}', '{{"s"}}', "{{'s'}}", '{{(a)}}',
  '{{{a}}}', '{{&a}}', '{{> p}}', '{{#> p}}x{{/p}}', '{{* d}}', '{{#*inline "p"}}x{{/inline}}', '{{{{raw}}}}x{{{{/raw}}}}', '{{~{a}~}}',
  '{{! comment }}', '{{!-- long }} comment --}}', '{{!--}}', '{{!--}}x--}}', '{{!-- unclosed }}', '{{! unclosed', '{{~! c ~}}', '{{!~}}',
  'a\n{{! standalone }}\nb', 'a\n  {{!-- standalone --}}  \nb', '{{! first }}\nrest',
  '\\{{a}}', '\\\\{{a}}', 'x\\{{a}} {{b}}', '\\{{a}}\\{{b}}', '\\{{{{a}}', '\\{{', 'a\\', '\\\\', '{{a}}\\{{b}}{{c}}', '\\{{a}}\\\\{{b}}',
  '{{#if a}}yes{{/if}}', '{{#if a}}yes{{else}}no{{/if}}', '{{#unless a}}no{{else}}yes{{/unless}}', '{{#if a}}A{{else if b}}B{{else}}C{{/if}}',
  '{{#if a}}A{{else if b}}B{{else if c}}C{{/if}}', '{{#if a}}A{{else unless b}}nb{{else}}C{{/if}}', '{{#if a}}A{{^}}not{{/if}}', '{{#if a}}A{{ else }}B{{/if}}',
  '{{^if a}}not a{{/if}}', '{{^if a}}not a{{else}}a{{/if}}', '{{^unless a}}a{{/unless}}', '{{^if a}}x{{else if b}}y{{/if}}', '{{^a}}x{{/a}}', '{{^}}',
  '{{#[if] a}}x{{/if}}', '{{#if a}}x{{/[if]}}', '{{#if a}}x{{/"if"}}', "{{#if a}}x{{/'if'}}", '{{# if a}}x{{/ if }}', '{{ #if a}}x{{/if}}',
  '{{#if a}}x{{/unless}}', '{{#if a}}x', '{{/if}}', '{{else}}', '{{else if a}}', '{{#if}}x{{/if}}', '{{#if a b}}x{{/if}}', '{{#if a x=1}}x{{/if}}',
  '{{#if a.b}}x{{/if}}', '{{#if (a)}}x{{/if}}', '{{#if a as |b|}}{{b}}{{/if}}', '{{#if this}}x{{/if}}', '{{#if [a b]}}x{{/if}}', '{{#if true}}x{{/if}}', '{{#if if}}x{{/if}}',
  '{{#each a}}x{{/each}}', '{{#with a}}x{{/with}}', '{{#a}}x{{/a}}', '{{#if a}}{{else each b}}y{{/if}}', '{{#if a}}x{{else}}y{{else}}z{{/if}}',
  '{{#if a}}x{{else}}y{{else if b}}z{{/if}}', '{{#if a}}}x{{/if}}', '{{#if a}}x{{/if}}}', '{{#if a}}x{{else}}}y{{/if}}', '{{#if[a]}}x{{/if}}', '{{#[if][a]}}x{{/if}}',
  '{{elsewhere}}', '{{else-x}}', '{{elseif a}}', '{{#if a}}x{{else[if] b}}y{{/if}}', '{{#if a}}x{{~else~}}  y{{/if}}',
  '{{#if a}}\n  yes\n{{/if}}\n', '  {{#if a}}\n  yes\n  {{else}}\n  no\n  {{/if}}\n', '{{#if a}}\r\n  yes\r\n{{/if}}\r\nafter',
  '<ul>\n  {{#if a}}\n    <li>{{a}}</li>\n  {{/if}}\n</ul>\n', 'x {{#if a}}\ny\n{{/if}} z', '\n{{#if a}}\n{{#if b}}\nab\n{{/if}}\n{{/if}}\n',
  '{{#if a}}\n{{else if b}}\nB\n{{else}}\nC\n{{/if}}\n', '{{~#if a~}} A {{~else~}} B {{~/if~}}', ' {{~#if a}} A {{else~}} B {{/if~}} ',
  '{{#if a}} x {{~/if}} y', '{{#if a~}} x {{/if}}', 'a\n{{#if b}}\n{{/if}}\nc', '{{#if a}}{{#unless b}}{{c}}{{/unless}}{{/if}}',
  '{{#if a}}\n  {{! c }}\n{{/if}}', '{{#unless a}}\n{{else}}\n{{/unless}}', 'line\n  {{#if a}}  \n  body\n  {{/if}}  \nend',
  '{{#if a}}\n{{else if b}}\n{{else if c}}\n{{else}}\n{{/if}}', '{{^if a}}\n no\n{{else}}\n yes\n{{/if}}\n', '\t{{#if a}}\t\n\tx\n\t{{/if}}\t\n',
  '{{contact.name}}', '{{#if contact.attributes.plan}}x{{/if}}', '{{a.b.c}}', '{{a..b}}', '{{a.}}', '{{a.[b]}}', '{{[a].b}}', '{{a.this}}', '{{a.1}}',
  '{{a.true}}', '{{a.b/c}}', '{{a-b.c-d}}', '{{ a.b ~}}', '{{#if a.b}}{{a.b}}{{else if contact.name}}{{contact.name}}{{/if}}', '{{/a.b}}', '{{if.a}}',
  'a\u00a0{{~name}}', '{{\nname\n}}', '{{#if\na\n}}x{{/if}}', '{{a}}\u0000', 'tail \\', '{{a\n}}', '{{constructor}}{{toString}}{{__proto__}}',
];

for (const source of CORPUS) {
  test(`the scanner agrees with Handlebars on ${JSON.stringify(source)}`, () => {
    for (const variables of VARIABLES) assertSame(source, variables);
  });
}

/** A deterministic generator (mulberry32), so a failure is reproducible. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'x', ' ', '  ', '\n', '\r\n', '\t', 'a b', '{{a}}', '{{ b }}', '{{~c}}', '{{c~}}', '{{~ a ~}}', '{{[a]}}', '{{! note }}', '{{!-- c --}}', '{{~! c ~}}',
  '\\{{a}}', '\\\\', '\\', '{{', '}}', '{', '}', '{{#if a}}', '{{#unless b}}', '{{~#if c~}}', '{{#if a~}}', '{{else}}', '{{~else~}}', '{{^}}',
  '{{else if b}}', '{{~else if c~}}', '{{else unless a}}', '{{/if}}', '{{/unless}}', '{{~/if~}}', '{{/if~}}', '{{^if a}}', '{{a.b}}', '{{{a}}}', '<p>', '&',
];

test('the scanner agrees with Handlebars on 3,000 generated templates', () => {
  const next = random(20261124);
  let accepted = 0;
  for (let n = 0; n < 3000; n++) {
    let source = '';
    const length = 1 + Math.floor(next() * 14);
    for (let i = 0; i < length; i++) source += PIECES[Math.floor(next() * PIECES.length)] ?? '';
    if (assertSame(source, VARIABLES[n % VARIABLES.length] ?? {})) accepted++;
  }
  // Both outcomes are exercised; the seed fixes the mix.
  assert.equal(accepted, 350);
});

test('the scanner agrees with Handlebars on generated well-nested templates', () => {
  const next = random(7);
  const block = (depth: number): string => {
    let out = '';
    const statements = 1 + Math.floor(next() * 4);
    for (let i = 0; i < statements; i++) {
      const pick = next();
      const ws = ['', ' ', '\n', '  \n', '\n  ', '\r\n'][Math.floor(next() * 6)] ?? '';
      if (pick < 0.3 && depth < 4) {
        const helper = next() < 0.7 ? 'if' : 'unless';
        const tilde = (): string => (next() < 0.2 ? '~' : '');
        out += `${ws}{{${tilde()}#${helper} ${'abc'[Math.floor(next() * 3)]}${tilde()}}}${ws}${block(depth + 1)}`;
        if (helper === 'if' && next() < 0.3) out += `{{${tilde()}else if b${tilde()}}}${ws}${block(depth + 1)}`;
        if (next() < 0.5) out += `${ws}{{${tilde()}else${tilde()}}}${ws}${block(depth + 1)}`;
        out += `${ws}{{${tilde()}/${helper}${tilde()}}}${ws}`;
      } else if (pick < 0.6) {
        out += `${ws}{{${next() < 0.2 ? '~' : ''}${'abc'[Math.floor(next() * 3)]}}}${ws}`;
      } else if (pick < 0.7) {
        out += `${ws}{{! c }}${ws}`;
      } else {
        out += ['text', '<b>&</b>', ' ', '\n', '\t \n'][Math.floor(next() * 5)] ?? '';
      }
    }
    return out;
  };
  let accepted = 0;
  for (let n = 0; n < 300; n++) if (assertSame(block(0), VARIABLES[n % VARIABLES.length] ?? {})) accepted++;
  assert.equal(accepted, 300);
});
