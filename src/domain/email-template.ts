// Stored email templates and request subjects, rendered with a documented Handlebars subset.
//
// Customers store templates and the service renders them for every send, so only two
// constructs are allowed:
//   - `{{name}}`            a variable (one plain name: no `a.b`, `this`, `../`, `@data`,
//                           no arguments, no hash); `{{[a b]}}` is the same with a name
//                           that has spaces or dots in it.
//   - `{{#if name}}…{{else}}…{{/if}}`, `{{#unless name}}…{{/unless}}`, `{{else if name}}`
//                           conditionals on one variable; a variable is true when it is
//                           present and not the empty string.
// plus plain text and `{{! comments }}`. Everything else (`{{{x}}}`, `{{&x}}`, partials,
// `each`, `with`, sub-expressions, helpers with arguments, decorators, raw blocks, block
// params) is rejected with `variableSyntax`. `{{{x}}}` is rejected in both modes so one
// template source means the same thing wherever it is rendered and no HTML value escapes.
// Variables may not be named `if` or `unless` (Handlebars would call the helper).
//
// Rendering:
//   - a missing variable renders as empty text (Handlebars non-strict mode);
//   - in 'html' mode each value is escaped by Handlebars: & < > " ' ` = become
//     &amp; &lt; &gt; &quot; &#x27; &#x60; &#x3D;. Newlines in values are kept as they
//     are (no <br>); in 'text' mode values are inserted raw;
//   - variables are copied onto a null-prototype object, so `__proto__`, `constructor`,
//     `toString` are ordinary (data) names: present → their value, absent → ''. The
//     prototype-access defaults are also passed explicitly so Handlebars never logs.

import Handlebars from 'handlebars';
import { ok, reject, type Result } from './result.ts';

export interface CompiledTemplate {
  render(variables: Readonly<Record<string, string>>): string;
}

export type TemplateMode = 'html' | 'text';

/** Bound of the compiled-template cache (entries, least recently used evicted first). */
export const TEMPLATE_CACHE_SIZE = 500;

// An isolated environment: helpers or partials registered elsewhere on the global
// Handlebars instance can never leak into customer templates.
const env = Handlebars.create();

// Only `if`/`unless` are helpers; the other built-ins are switched off so that, with
// knownHelpersOnly, a name such as `{{log}}` or `{{each}}` is a plain variable lookup.
const KNOWN_HELPERS = {
  if: true,
  unless: true,
  each: false,
  with: false,
  log: false,
  lookup: false,
  helperMissing: false,
  blockHelperMissing: false,
} as const;
const HELPER_NAMES: ReadonlySet<string> = new Set(['if', 'unless']);

// Explicit defaults: denied prototype access then returns undefined without the
// one-time console warning Handlebars prints when these are left unset.
const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
};

type Node = hbs.AST.Node;
type Program = hbs.AST.Program;

function isSimplePath(node: Node | undefined): boolean {
  if (node === undefined || node.type !== 'PathExpression') return false;
  const path = node as hbs.AST.PathExpression;
  const name = path.parts[0];
  // `original === name` rules out `this.x`, `./x` and `this` (whose parts differ from the text).
  return (
    path.parts.length === 1 &&
    name !== undefined &&
    path.original === name &&
    path.depth === 0 &&
    !path.data &&
    !HELPER_NAMES.has(name)
  );
}

function hasNoHash(node: { hash?: hbs.AST.Hash }): boolean {
  return node.hash === undefined || node.hash.pairs.length === 0;
}

function isAllowedProgram(program: Program | undefined): boolean {
  if (program === undefined) return true;
  if (program.blockParams !== undefined && program.blockParams.length > 0) return false;
  return program.body.every(isAllowedStatement);
}

function isAllowedStatement(node: Node): boolean {
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
      return (
        HELPER_NAMES.has(helper) &&
        b.params.length === 1 &&
        isSimplePath(b.params[0]) &&
        hasNoHash(b) &&
        isAllowedProgram(b.program) &&
        isAllowedProgram(b.inverse)
      );
    }
    default:
      // PartialStatement, PartialBlockStatement, Decorator, DecoratorBlock, …
      return false;
  }
}

// Only own string values are copied: a non-string (e.g. a function, which Handlebars
// would call) can never reach the template even if a caller bypasses the types.
function toContext(variables: Readonly<Record<string, string>>): Record<string, string> {
  const context: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(variables)) {
    if (typeof value === 'string') context[key] = value;
  }
  return context;
}

function compileUncached(source: string, mode: TemplateMode): Result<CompiledTemplate> {
  try {
    if (!isAllowedProgram(env.parse(source))) return reject('variableSyntax');
    const template = env.compile<Record<string, string>>(source, {
      noEscape: mode === 'text',
      strict: false,
      knownHelpersOnly: true,
      knownHelpers: KNOWN_HELPERS,
    });
    // Handlebars compiles lazily on first call; render once now so any compiler error
    // surfaces here as variableSyntax instead of at send time.
    template(Object.create(null), RUNTIME_OPTIONS);
    return ok({ render: (variables) => template(toContext(variables), RUNTIME_OPTIONS) });
  } catch {
    // Parse errors (unclosed `{{name`, mismatched blocks) and anything the compiler refuses.
    return reject('variableSyntax');
  }
}

// Map iteration order is insertion order: re-inserting on a hit makes the first key the
// least recently used one. Rejections are cached too, as a bad template is resent as often.
const cache = new Map<string, Result<CompiledTemplate>>();

export function compileTemplate(source: string, mode: TemplateMode): Result<CompiledTemplate> {
  const key = `${mode}\u0000${source}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const result = compileUncached(source, mode);
  cache.set(key, result);
  if (cache.size > TEMPLATE_CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  return result;
}

/** Save-time validation of a template source (same rules as rendering, 'html' mode). */
export function checkTemplateSyntax(source: string): Result<null> {
  const compiled = compileTemplate(source, 'html');
  return compiled.ok ? ok(null) : compiled;
}

/**
 * The request's subject with its variables filled in, as text (no HTML escaping).
 * Line breaks (from the subject or a value) become one space: a subject is one header line.
 */
export function renderSubject(subject: string, variables: Readonly<Record<string, string>>): Result<string> {
  const compiled = compileTemplate(subject, 'text');
  if (!compiled.ok) return compiled;
  return ok(compiled.value.render(variables).replace(/\r\n|\r|\n/g, ' '));
}
