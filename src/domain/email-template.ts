// Stored email templates and request subjects, rendered with a documented Handlebars subset.
//
// Customers store templates and the service renders them for every send, so only two
// constructs are allowed:
//   - `{{name}}`            a variable (one name: no `this`, `../`, `a/b`, `@data`, no
//                           arguments, no hash); a dotted path `{{contact.name}}` is ONE
//                           variable whose name holds the dots, as is `{{[a b]}}` for a
//                           name with spaces. Campaigns fill `contact.*` names per contact
//                           (campaigns/campaign-content.ts); a send fills what it is given.
//   - `{{#if name}}…{{else}}…{{/if}}`, `{{#unless name}}…{{/unless}}`, `{{else if name}}`
//                           conditionals on one variable; a variable is true when it is
//                           present and not the empty string.
// plus plain text and `{{! comments }}`. A syntax error's `detail` names its line, column
// and tag (template-parser.ts). Everything else (`{{{x}}}`, `{{&x}}`, partials,
// `each`, `with`, sub-expressions, helpers with arguments, decorators, raw blocks, block
// params) is rejected with `variableSyntax`. `{{{x}}}` is rejected in both modes so one
// template source means the same thing wherever it is rendered and no HTML value escapes.
// Variables may not be named `if` or `unless`. Whitespace follows Handlebars' rules (`~`,
// standalone block lines), and `\{{` keeps braces literal.
//
// Rendering:
//   - a missing variable renders as empty text;
//   - in 'html' mode each value is escaped: & < > " ' ` = become
//     &amp; &lt; &gt; &quot; &#x27; &#x60; &#x3D;. Newlines in values are kept as they
//     are (no <br>); in 'text' mode values are inserted raw;
//   - only own string values count, so `__proto__`, `constructor`, `toString` are
//     ordinary (data) names: present → their value, absent → ''.
//
// Bounded work (README "Limits"): the source's length, its `{{…}}` tags and its block depth
// are checked while it is scanned, before anything is built (template-parser.ts); compiling
// and rendering are linear; a render is refused before it starts when its longest possible
// result (the text plus every placeholder filled) is over the limit; the cache of compiled
// templates is bounded in bytes and keeps only templates that compiled.

import { createHash } from 'node:crypto';
import { BoundedCache } from '../cache/bounded-cache.ts';
import { parseTemplate, type Program, type TemplateLimits } from './template-parser.ts';
import { controlWhitespace } from './template-whitespace.ts';
import type { RequestLimits } from './request-limits.ts';
import { ok, reject, type Result } from './result.ts';

export type TemplateMode = 'html' | 'text';
export type { TemplateLimits } from './template-parser.ts';

/** A template ready to render: a tree of text, variables and conditionals. */
export interface CompiledTemplate {
  readonly mode: TemplateMode;
  /** The longest result these variables could give: every text and every placeholder counted. */
  longestRendering(variables: Readonly<Record<string, string>>): number;
  render(variables: Readonly<Record<string, string>>): string;
}

export interface TemplateEngineOptions {
  /** A stored template's html and text parts. */
  readonly template: TemplateLimits;
  /** Longest subject, before and after its placeholders are filled (same tag and depth limits). */
  readonly maxSubjectLength: number;
  /** Longest rendered html or text part. */
  readonly maxRenderedLength: number;
  /** Bytes the compiled-template cache may hold (an estimate of what each entry retains). */
  readonly cacheBytes: number;
}

export interface TemplateEngine {
  /** A template part; refused for syntax or a limit. */
  compile(source: string, mode: TemplateMode): Result<CompiledTemplate>;
  /** A subject template (text mode, the subject's length limit). */
  compileSubject(source: string): Result<CompiledTemplate>;
  /** A compiled part filled in, unless its longest possible result is over the limit. */
  render(template: CompiledTemplate, variables: Readonly<Record<string, string>>): Result<string>;
  /**
   * The subject with its variables filled in, as text (no HTML escaping). Line breaks
   * (from the subject or a value) become one space: a subject is one header line.
   */
  renderSubject(subject: string, variables: Readonly<Record<string, string>>): Result<string>;
  /** What the cache holds: entries and estimated bytes (tests and metrics). */
  cacheUsage(): { readonly entries: number; readonly bytes: number };
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;',
};
const ESCAPED = /[&<>"'`=]/g;
const escapeHtml = (value: string): string => value.replace(ESCAPED, (ch) => ESCAPES[ch] ?? ch);

/** The escaped length without building the escaped string. */
function escapedLength(value: string): number {
  let length = value.length;
  for (let i = 0; i < value.length; i++) {
    switch (value.charCodeAt(i)) {
      case 0x26: length += 4; break; // &amp;
      case 0x3c: case 0x3e: length += 3; break; // &lt; &gt;
      case 0x22: case 0x27: case 0x60: case 0x3d: length += 5; break; // &quot; &#x27; &#x60; &#x3D;
    }
  }
  return length;
}

/** Own string values only: a non-string (a function, an object) is as good as missing. */
function valueOf(variables: Readonly<Record<string, string>>, name: string): string | undefined {
  if (!Object.hasOwn(variables, name)) return undefined;
  const value: unknown = variables[name];
  return typeof value === 'string' ? value : undefined;
}

// Handlebars' `if`: a missing variable and the empty string are false, any other string true.
const isTrue = (value: string | undefined): boolean => value !== undefined && value !== '';

class Compiled implements CompiledTemplate {
  readonly mode: TemplateMode;
  readonly #root: Program;
  /** Every text's length, in all branches. */
  readonly #textLength: number;
  /** How often each variable is placed (conditions are not placements). */
  readonly #placements: ReadonlyMap<string, number>;

  constructor(root: Program, mode: TemplateMode) {
    this.mode = mode;
    this.#root = root;
    let textLength = 0;
    const placements = new Map<string, number>();
    const visit = (program: Program | undefined): void => {
      for (const node of program?.body ?? []) {
        if (node.type === 'content') textLength += node.value.length;
        else if (node.type === 'variable') placements.set(node.name, (placements.get(node.name) ?? 0) + 1);
        else if (node.type === 'block') {
          visit(node.program);
          visit(node.inverse);
        }
      }
    };
    visit(root);
    this.#textLength = textLength;
    this.#placements = placements;
  }

  longestRendering(variables: Readonly<Record<string, string>>): number {
    let length = this.#textLength;
    for (const [name, count] of this.#placements) {
      const value = valueOf(variables, name);
      if (value !== undefined) length += count * (this.mode === 'html' ? escapedLength(value) : value.length);
    }
    return length;
  }

  render(variables: Readonly<Record<string, string>>): string {
    const parts: string[] = [];
    const html = this.mode === 'html';
    const walk = (program: Program | undefined): void => {
      for (const node of program?.body ?? []) {
        switch (node.type) {
          case 'content':
            parts.push(node.value);
            break;
          case 'variable': {
            const value = valueOf(variables, node.name);
            if (value !== undefined) parts.push(html ? escapeHtml(value) : value);
            break;
          }
          case 'block': {
            const taken = isTrue(valueOf(variables, node.name)) === (node.helper === 'if');
            walk(taken ? node.program : node.inverse);
            break;
          }
          case 'comment':
            break;
        }
      }
    };
    walk(this.#root);
    return parts.join('');
  }
}

// A cached template keeps its source's text (content nodes are slices of it) and a few
// small objects per tag; this estimate is deliberately generous.
const BYTES_PER_CHARACTER = 2;
const BYTES_PER_TAG = 160;
const BYTES_PER_ENTRY = 256;

export function createTemplateEngine(options: TemplateEngineOptions): TemplateEngine {
  // 0 bytes: no cache (lru-cache needs a positive size).
  const cache = options.cacheBytes > 0
    ? new BoundedCache<string, { readonly compiled: CompiledTemplate; readonly bytes: number }>({ maxBytes: options.cacheBytes, bytesOf: (entry) => entry.bytes })
    : undefined;
  const subjectLimits: TemplateLimits = { ...options.template, maxLength: options.maxSubjectLength };

  const refusal = (code: 'variableSyntax' | 'templateTooLarge' | 'templateTooManyPlaceholders' | 'templateTooDeep', limits: TemplateLimits, subject: boolean, detail?: string) => {
    switch (code) {
      case 'variableSyntax':
        return reject('variableSyntax', detail === undefined ? {} : { detail });
      case 'templateTooLarge':
        return subject
          ? reject('subjectTooLong', { detail: `at most ${limits.maxLength} characters` })
          : reject('templateTooLarge', { detail: `at most ${limits.maxLength} characters` });
      case 'templateTooManyPlaceholders':
        return reject(code, { detail: `at most ${limits.maxPlaceholders} {{…}} tags` });
      case 'templateTooDeep':
        return reject(code, { detail: `at most ${limits.maxDepth} levels of blocks` });
    }
  };

  function compileWithin(source: string, mode: TemplateMode, limits: TemplateLimits, subject: boolean): Result<CompiledTemplate> {
    // The length first: nothing else is done with a source that is too long, not even hashing it.
    if (source.length > limits.maxLength) return refusal('templateTooLarge', limits, subject);
    const key = `${mode}:${createHash('sha256').update(source).digest('base64')}`;
    const hit = cache?.get(key);
    if (hit !== undefined) return ok(hit.compiled);
    const parsed = parseTemplate(source, limits);
    if (!parsed.ok) return refusal(parsed.refusal, limits, subject, parsed.detail);
    const compiled = new Compiled(controlWhitespace(parsed.value.root), mode);
    cache?.set(key, { compiled, bytes: BYTES_PER_ENTRY + source.length * BYTES_PER_CHARACTER + parsed.value.tags * BYTES_PER_TAG });
    return ok(compiled);
  }

  const compileSubject = (source: string): Result<CompiledTemplate> => compileWithin(source, 'text', subjectLimits, true);

  return {
    compile: (source, mode) => compileWithin(source, mode, options.template, false),
    compileSubject,
    render(template, variables) {
      if (template.longestRendering(variables) > options.maxRenderedLength) {
        return reject('renderedTooLarge', { detail: `at most ${options.maxRenderedLength} characters, counting every placeholder filled` });
      }
      return ok(template.render(variables));
    },
    renderSubject(subject, variables) {
      const compiled = compileSubject(subject);
      if (!compiled.ok) return compiled;
      if (compiled.value.longestRendering(variables) > options.maxSubjectLength) {
        return reject('subjectTooLong', { detail: `at most ${options.maxSubjectLength} characters, counting every placeholder filled` });
      }
      return ok(compiled.value.render(variables).replace(/\r\n|\r|\n/g, ' '));
    },
    cacheUsage: () => ({ entries: cache?.size ?? 0, bytes: cache?.bytes ?? 0 }),
  };
}

/**
 * A syntax refusal with its part named before the place (`html: line 3, column 12: …`),
 * for answers about a content of several parts (subject, html, text).
 */
export function inPart<T>(result: Result<T>, part: 'subject' | 'html' | 'text'): Result<T> {
  if (result.ok || result.rejection.code !== 'variableSyntax' || result.rejection.detail === undefined) return result;
  return reject('variableSyntax', { detail: `${part}: ${result.rejection.detail}` });
}

/** The engine for the request limits in effect. */
export function templateEngineFor(limits: RequestLimits, cacheBytes: number): TemplateEngine {
  return createTemplateEngine({
    template: { maxLength: limits.maxTemplateLength, maxPlaceholders: limits.maxTemplatePlaceholders, maxDepth: limits.maxTemplateDepth },
    maxSubjectLength: limits.maxSubjectLength,
    maxRenderedLength: limits.maxRenderedLength,
    cacheBytes,
  });
}
