// The placeholder syntax of email templates and subjects (documented in email-template.ts),
// read in one linear pass by a scanner of our own.
//
// The syntax is the subset of Handlebars that herald has always accepted; this scanner
// reproduces the Handlebars 4 lexer and grammar for that subset, token rule by token rule
// (which `{{…}}` forms exist, `\{{` escapes, comments, `~` strip marks, how an `else if`
// chain nests), so every template valid before renders the same. One addition: a dotted
// path (`{{contact.name}}`) is read as ONE variable named with its dots, as the bracket form
// `{{[contact.name]}}` always was; a syntax error names its line, column and tag.
// The Handlebars compiler itself cost about 10 KB of heap and 80 µs per placeholder and took 10 s for 3,500 nested
// blocks; here size, placeholder count and nesting depth are checked while scanning, before
// anything is built, and the work stops at the first limit passed.
// test/domain/template-parser.test.ts compares the result with Handlebars' own parser.

import type { WireCode } from './wire-texts.ts';

export interface TemplateLimits {
  /** Longest source, in UTF-16 code units (JavaScript string length). */
  readonly maxLength: number;
  /** Most `{{…}}` tags: variables, comments, block opens, `else`s and closes alike. */
  readonly maxPlaceholders: number;
  /** Deepest block nesting; each `{{else if}}` of a chain is one level more (it nests). */
  readonly maxDepth: number;
}

export type TemplateRefusal = Extract<WireCode, 'variableSyntax' | 'templateTooLarge' | 'templateTooManyPlaceholders' | 'templateTooDeep'>;

export interface Strip {
  readonly open: boolean;
  readonly close: boolean;
}

// The tree has the shape of Handlebars' AST (field names included) so that its whitespace
// rules, ported in template-whitespace.ts, apply unchanged.
export interface ContentNode {
  readonly type: 'content';
  readonly original: string;
  value: string;
  leftStripped?: boolean;
  rightStripped?: boolean;
}
export interface CommentNode {
  readonly type: 'comment';
  readonly strip: Strip;
}
export interface VariableNode {
  readonly type: 'variable';
  readonly name: string;
  readonly strip: Strip;
}
export interface BlockNode {
  readonly type: 'block';
  readonly helper: 'if' | 'unless';
  /** The variable the helper tests. */
  readonly name: string;
  readonly program: Program | undefined;
  readonly inverse: Program | undefined;
  readonly openStrip: Strip;
  readonly inverseStrip: Strip | undefined;
  closeStrip: Strip | undefined;
}
export type TemplateNode = ContentNode | CommentNode | VariableNode | BlockNode;
export interface Program {
  readonly body: TemplateNode[];
  /** The inverse of a block that holds the next `{{else if}}` of its chain. */
  readonly chained?: true;
}

type TagToken =
  | { readonly kind: 'comment'; readonly strip: Strip }
  | { readonly kind: 'variable'; readonly name: string; readonly strip: Strip }
  | { readonly kind: 'open'; readonly inverted: boolean; readonly helper: 'if' | 'unless'; readonly name: string; readonly strip: Strip }
  | { readonly kind: 'chain'; readonly helper: 'if' | 'unless'; readonly name: string; readonly strip: Strip }
  | { readonly kind: 'else'; readonly strip: Strip }
  | { readonly kind: 'close'; readonly name: string; readonly strip: Strip };
/** A tag knows where its `{{` is (`at`, a string index) so a syntax error can name its line and column. */
type Token = { readonly kind: 'content'; readonly text: string } | (TagToken & { readonly at: number });

export type Scan<T> =
  | { readonly ok: true; readonly value: T }
  /** `detail`, for syntax errors: where and what, as `line 3, column 12: {{#if}} is never closed`. */
  | { readonly ok: false; readonly refusal: TemplateRefusal; readonly detail?: string };
const refuse = (refusal: TemplateRefusal): { ok: false; refusal: TemplateRefusal } => ({ ok: false, refusal });

/** `line L, column C` of a string index, both from 1 (columns in UTF-16 code units, as editors count). */
function position(source: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < at; i = source.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `line ${line}, column ${at - lineStart + 1}`;
}

const syntaxError = (source: string, at: number, what: string): { ok: false; refusal: 'variableSyntax'; detail: string } =>
  ({ ok: false, refusal: 'variableSyntax', detail: `${position(source, at)}: ${what}` });

/** The tag at `at` as written, up to its `}}` (cut after 40 characters), for an error's text. */
function tagText(source: string, at: number): string {
  const close = source.indexOf('}}', at + 2);
  const end = close === -1 ? source.length : close + 2;
  const text = source.slice(at, end).replace(/\s+/g, ' ');
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** How an error names a tag: blocks by their helper (`{{#if}}`, `{{/unless}}`), the rest as written. */
function tagName(token: Token | undefined, source: string): string {
  if (token === undefined || token.kind === 'content') return 'the end of the template';
  switch (token.kind) {
    case 'open': return `{{${token.inverted ? '^' : '#'}${token.helper}}}`;
    case 'chain': return `{{else ${token.helper}}}`;
    case 'else': return '{{else}}';
    case 'close': return `{{/${token.name}}}`;
    default: return tagText(source, token.at);
  }
}

const HELPERS: ReadonlySet<string> = new Set(['if', 'unless']);

// The Handlebars lexer's own patterns (handlebars/compiler/parser.js, lexer.rules), sticky;
// its whitespace (`\s`) and ID patterns are written out as character tests below, which
// are several times faster than a regular expression per tag.
/** `[any name]`; `\]` and `\\` inside are escapes. */
const BRACKET_ID = /\[(?:\\\]|[^\]])*\]/y;
/** true, false, undefined, null and numbers are literals, never names. */
const LITERAL = /(?:true|false|undefined|null|-?[0-9]+(?:\.[0-9]+)?)(?=[~}\s)])/y;
const STRING = /"((?:\\"|[^"])*)"|'((?:\\'|[^'])*)'/y;
/** `{{^}}` and `{{else}}` (the token's rest after `{{` `~`?). */
const CARET_ELSE = /\^\s*(~)?\}\}/y;
const WORD_ELSE = /\s*else\s*(~)?\}\}/y;
const ELSE_CHAIN = /\s*else\b/y;
const LONG_COMMENT_END = /--(~)?\}\}/g;

function matchAt(pattern: RegExp, source: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(source);
}

/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a)
    || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The ASCII characters an ID may not hold: `!"#%&'()*+,./;<=>@[\]^` and backtick, `{|}~` (and whitespace). */
const NOT_ID: ReadonlySet<number> = new Set([...'!"#%&\'()*+,./;<=>@[\\]^`{|}~'].map((ch) => ch.charCodeAt(0)));
const isIdCharacter = (c: number): boolean => !NOT_ID.has(c) && !isSpace(c);
/** What may follow an ID: `=~}/.)|` or whitespace. */
const ID_FOLLOW: ReadonlySet<number> = new Set([...'=~}/.)|'].map((ch) => ch.charCodeAt(0)));

function skipWhitespace(source: string, at: number): number {
  let p = at;
  while (p < source.length && isSpace(source.charCodeAt(p))) p++;
  return p;
}

/** One name at `at` (an ID or a bracketed name), as one part of Handlebars' path; null when none. */
function readSegment(source: string, at: number): { name: string; end: number } | null {
  const first = source.charCodeAt(at);
  // true, false, undefined, null and numbers (the only literals that start so).
  if ((first === 0x2d || (first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x75 || first === 0x6e)
    && matchAt(LITERAL, source, at) !== null) return null;
  let end = at;
  while (end < source.length && isIdCharacter(source.charCodeAt(end))) end++;
  if (end > at) {
    const id = source.slice(at, end);
    const next = source.charCodeAt(end);
    // `this` is the context, never a variable; an ID must end where Handlebars' does.
    if (id === 'this' || Number.isNaN(next) || !(ID_FOLLOW.has(next) || isSpace(next))) return null;
    return { name: id, end };
  }
  const bracket = matchAt(BRACKET_ID, source, at);
  if (bracket === null) return null;
  const text = bracket[0].replace(/\\([\\\]])/g, '$1');
  // Handlebars drops the brackets with /^\[.*\]$/, whose `.` stops at a line break; `[]` names nothing.
  const name = /^\[.*\]$/.test(text) ? text.slice(1, -1) : text;
  return name === '' ? null : { name, end: at + bracket[0].length };
}

/**
 * A name at `at`: one part, or a dotted path of parts (`contact.attributes.city`,
 * `contact.attributes.[first name]`), which herald reads as ONE variable named with its
 * dots; campaigns fill such names per contact. `a/b`, `this.a` and `../a` stay refused.
 */
function readName(source: string, at: number): { name: string; end: number } | null {
  const first = readSegment(source, at);
  if (first === null) return null;
  let { name, end } = first;
  while (source.charCodeAt(end) === 0x2e) {
    const part = readSegment(source, end + 1);
    if (part === null) return null;
    name = `${name}.${part.name}`;
    end = part.end;
  }
  return { name, end };
}

/** The end of a tag at `at` (whitespace, then `~}}` or `}}`); `}}}` ends a triple-stash and is refused. */
function readClose(source: string, at: number): { end: number; strip: boolean } | null {
  const p = skipWhitespace(source, at);
  if (source.startsWith('}}}', p) || source.startsWith('}~}}', p)) return null;
  if (source.startsWith('~}}', p)) return { end: p + 3, strip: true };
  if (source.startsWith('}}', p)) return { end: p + 2, strip: false };
  return null;
}

/** `if name` or `unless name`, then the tag's end. */
function readHelperCall(source: string, at: number): { helper: 'if' | 'unless'; name: string; end: number; strip: boolean } | null {
  const helper = readName(source, skipWhitespace(source, at));
  if (helper === null || !HELPERS.has(helper.name)) return null;
  const param = readName(source, skipWhitespace(source, helper.end));
  if (param === null || HELPERS.has(param.name)) return null;
  const close = readClose(source, param.end);
  if (close === null) return null;
  return { helper: helper.name as 'if' | 'unless', name: param.name, end: close.end, strip: close.strip };
}

/** The tag that starts at `start` (at its `{{`), or null when Handlebars refuses it or herald does not allow it. */
function readTag(source: string, start: number): { token: TagToken; end: number } | null {
  let p = start + 2;
  if (source.startsWith('{{', p)) return null; // `{{{{raw}}}}` blocks
  const openStrip = source[p] === '~';
  if (openStrip) p++;
  const flags = (close: boolean): Strip => ({ open: openStrip, close });
  switch (source[p]) {
    case undefined:
    case '>': // partials
    case '{': // triple-stash: unescaped HTML
    case '&': // unescaped HTML
    case '*': // decorators
      return null;
    case '!': {
      let end: number;
      if (source.startsWith('!--', p)) {
        // Handlebars searches `--}}` from the tag's start, so `{{!--}}` is a whole comment.
        LONG_COMMENT_END.lastIndex = start;
        const found = LONG_COMMENT_END.exec(source);
        if (found === null) return null;
        end = found.index + found[0].length;
      } else {
        const close = source.indexOf('}}', p + 1);
        if (close === -1) return null;
        end = close + 2;
      }
      return { token: { kind: 'comment', strip: flags(source[end - 3] === '~') }, end };
    }
    case '#': {
      if (source[p + 1] === '>' || source[p + 1] === '*') return null; // partial blocks, decorator blocks
      const call = readHelperCall(source, p + 1);
      if (call === null) return null;
      return { token: { kind: 'open', inverted: false, helper: call.helper, name: call.name, strip: flags(call.strip) }, end: call.end };
    }
    case '^': {
      const caret = matchAt(CARET_ELSE, source, p);
      if (caret !== null) return { token: { kind: 'else', strip: flags(caret[1] === '~') }, end: p + caret[0].length };
      const call = readHelperCall(source, p + 1);
      if (call === null) return null;
      return { token: { kind: 'open', inverted: true, helper: call.helper, name: call.name, strip: flags(call.strip) }, end: call.end };
    }
    case '/': {
      const at = skipWhitespace(source, p + 1);
      const quoted = matchAt(STRING, source, at);
      // A close names its block by an ID, a bracketed name or even a string (`{{/"if"}}`).
      const name = quoted !== null
        ? { name: quoted[1] !== undefined ? quoted[1].replace(/\\"/g, '"') : (quoted[2] ?? '').replace(/\\'/g, "'"), end: at + quoted[0].length }
        : readName(source, at);
      if (name === null) return null;
      const close = readClose(source, name.end);
      if (close === null) return null;
      return { token: { kind: 'close', name: name.name, strip: flags(close.strip) }, end: close.end };
    }
  }
  const named = skipWhitespace(source, p);
  const word = source.startsWith('else', named) ? matchAt(WORD_ELSE, source, p) : null;
  if (word !== null) return { token: { kind: 'else', strip: flags(word[1] === '~') }, end: p + word[0].length };
  const chain = source.startsWith('else', named) ? matchAt(ELSE_CHAIN, source, p) : null;
  if (chain !== null) {
    const call = readHelperCall(source, p + chain[0].length);
    if (call === null) return null;
    return { token: { kind: 'chain', helper: call.helper, name: call.name, strip: flags(call.strip) }, end: call.end };
  }
  const name = readName(source, named);
  if (name === null || HELPERS.has(name.name)) return null;
  const close = readClose(source, name.end);
  if (close === null) return null;
  return { token: { kind: 'variable', name: name.name, strip: flags(close.strip) }, end: close.end };
}

/**
 * The end of the text a `\{{` escape keeps literal: Handlebars' "emu" state takes at least
 * two characters, up to the next `{{`, `\{{` or `\\{{`, or the end.
 */
function escapedEnd(source: string, from: number): number {
  const next = source.indexOf('{{', from + 2);
  if (next === -1) return source.length;
  if (next - 2 >= from + 2 && source[next - 1] === '\\' && source[next - 2] === '\\') return next - 2;
  if (next - 1 >= from + 2 && source[next - 1] === '\\') return next - 1;
  return next;
}

/**
 * The source's tokens, or the first refusal met: too long (checked first, before reading),
 * too many tags or too deep (checked as each tag is read), or a syntax error.
 */
function scan(source: string, limits: TemplateLimits): Scan<Token[]> {
  if (source.length > limits.maxLength) return refuse('templateTooLarge');
  // Handlebars' lexer has no rule for NUL.
  const nul = source.indexOf('\u0000');
  if (nul !== -1) return syntaxError(source, nul, 'the NUL character is not allowed');
  const tokens: Token[] = [];
  // Levels of each open block: 1, plus one per `{{else if}}` read so far in its chain.
  const levels: number[] = [];
  let depth = 0;
  let tags = 0;
  let at = 0;
  while (at < source.length) {
    const open = source.indexOf('{{', at);
    if (open === -1) {
      tokens.push({ kind: 'content', text: source.slice(at) });
      break;
    }
    let text = source.slice(at, open);
    if (text.endsWith('\\') && !text.endsWith('\\\\')) {
      // `\{{`: the backslash goes, the braces and what follows stay text.
      // Two content tokens, as Handlebars lexes them (its whitespace rules see both).
      text = text.slice(0, -1);
      if (text !== '') tokens.push({ kind: 'content', text });
      const end = escapedEnd(source, open);
      tokens.push({ kind: 'content', text: source.slice(open, end) });
      at = end;
      continue;
    }
    // `\\{{`: one backslash stays, the tag is real.
    if (text.endsWith('\\\\')) text = text.slice(0, -1);
    if (text !== '') tokens.push({ kind: 'content', text });
    if (++tags > limits.maxPlaceholders) return refuse('templateTooManyPlaceholders');
    const tag = readTag(source, open);
    if (tag === null) {
      return source.indexOf('}}', open + 2) === -1
        ? syntaxError(source, open, `${tagText(source, open)} is never closed with }}`)
        : syntaxError(source, open, `${tagText(source, open)} is not a placeholder herald knows`);
    }
    const token: Token = { ...tag.token, at: open };
    if (token.kind === 'open' || token.kind === 'chain') {
      if (token.kind === 'open') levels.push(1);
      else if (levels.length > 0) levels[levels.length - 1] = (levels.at(-1) ?? 0) + 1;
      else return syntaxError(source, open, `${tagName(token, source)} is outside any {{#if}} or {{#unless}}`);
      if (++depth > limits.maxDepth) return refuse('templateTooDeep');
    } else if (token.kind === 'close') {
      const closed = levels.pop();
      if (closed === undefined) return syntaxError(source, open, `${tagName(token, source)} closes no block`);
      depth -= closed;
    }
    tokens.push(token);
    at = tag.end;
  }
  return { ok: true, value: tokens };
}

// The grammar, as Handlebars' (handlebars.yy): block, inverse chain, inverse and program.

class SyntaxRefused extends Error {
  /** Where (a string index) and what, for the error's detail. */
  readonly at: number;
  readonly what: string;
  constructor(at: number, what: string) {
    super(what);
    this.at = at;
    this.what = what;
  }
}

interface InverseAndProgram {
  readonly strip: Strip;
  readonly program: Program;
  readonly chain?: true;
}

class Parser {
  #tokens: readonly Token[];
  #source: string;
  #at = 0;
  constructor(tokens: readonly Token[], source: string) {
    this.#tokens = tokens;
    this.#source = source;
  }

  /** Refused at the token at `index` (the end of the source when there is none). */
  #refuse(index: number, what: string): SyntaxRefused {
    const token = this.#tokens[index];
    return new SyntaxRefused(token !== undefined && token.kind !== 'content' ? token.at : this.#source.length, what);
  }

  root(): Program {
    const program = this.#program();
    if (this.#at !== this.#tokens.length) {
      const stray = this.#tokens[this.#at];
      throw this.#refuse(this.#at, `${tagName(stray, this.#source)} is outside any {{#if}} or {{#unless}}`);
    }
    return program;
  }

  /** Statements up to the end or the first `else`, `else if` or close, which the caller takes. */
  #program(): Program {
    const body: TemplateNode[] = [];
    for (;;) {
      const token = this.#tokens[this.#at];
      if (token === undefined) return { body };
      switch (token.kind) {
        case 'content':
          this.#at++;
          body.push({ type: 'content', original: token.text, value: token.text });
          break;
        case 'comment':
          this.#at++;
          body.push({ type: 'comment', strip: token.strip });
          break;
        case 'variable':
          this.#at++;
          body.push({ type: 'variable', name: token.name, strip: token.strip });
          break;
        case 'open':
          this.#at++;
          body.push(this.#block(token));
          break;
        default:
          return { body };
      }
    }
  }

  #block(open: Extract<Token, { kind: 'open' }>): BlockNode {
    const program = this.#program();
    let inverse: InverseAndProgram | undefined;
    const next = this.#tokens[this.#at];
    // An inverted block (`{{^if a}}`) takes a plain `{{else}}` only, never a chain.
    if (next?.kind === 'else' || (next?.kind === 'chain' && !open.inverted)) inverse = this.#inverseChain();
    const close = this.#tokens[this.#at];
    if (close?.kind !== 'close' || close.name !== open.helper) throw this.#unclosed(open, close);
    this.#at++;
    return prepareBlock(open, program, inverse, close.strip, open.inverted);
  }

  /** Why a block's close is not where it should be: missing, for another block, or after a second `{{else}}`. */
  #unclosed(open: Extract<Token, { kind: 'open' }>, found: Token | undefined): SyntaxRefused {
    const opener = tagName(open, this.#source);
    if (found?.kind === 'close') {
      return this.#refuse(this.#at, `${tagName(found, this.#source)} does not close ${opener} of ${position(this.#source, open.at)}`);
    }
    if (found?.kind === 'else' || found?.kind === 'chain') {
      return this.#refuse(this.#at, `${tagName(found, this.#source)} is not allowed here in ${opener} of ${position(this.#source, open.at)}`);
    }
    return new SyntaxRefused(open.at, `${opener} is never closed`);
  }

  #inverseChain(): InverseAndProgram {
    const token = this.#tokens[this.#at++];
    if (token?.kind === 'else') return { strip: token.strip, program: this.#program() };
    if (token?.kind !== 'chain') throw this.#refuse(this.#at - 1, `${tagName(token, this.#source)} is not allowed here`);
    const program = this.#program();
    const next = this.#tokens[this.#at];
    const rest = next?.kind === 'else' || next?.kind === 'chain' ? this.#inverseChain() : undefined;
    const inner = prepareBlock(token, program, rest, rest?.strip, false);
    return { strip: token.strip, program: { body: [inner], chained: true }, chain: true };
  }
}

/** handlebars/compiler/helpers.js prepareBlock, strip marks and all. */
function prepareBlock(
  open: { readonly helper: 'if' | 'unless'; readonly name: string; readonly strip: Strip },
  program: Program,
  inverseAndProgram: InverseAndProgram | undefined,
  closeStrip: Strip | undefined,
  inverted: boolean,
): BlockNode {
  let inverse: Program | undefined;
  let inverseStrip: Strip | undefined;
  if (inverseAndProgram !== undefined) {
    const first = inverseAndProgram.program.body[0];
    if (inverseAndProgram.chain === true && first?.type === 'block') first.closeStrip = closeStrip;
    inverseStrip = inverseAndProgram.strip;
    inverse = inverseAndProgram.program;
  }
  return {
    type: 'block',
    helper: open.helper,
    name: open.name,
    program: inverted ? inverse : program,
    inverse: inverted ? program : inverse,
    openStrip: open.strip,
    inverseStrip,
    closeStrip,
  };
}

/** The template's tree (before whitespace control) and its tag count, or why it is refused. */
export function parseTemplate(source: string, limits: TemplateLimits): Scan<{ readonly root: Program; readonly tags: number }> {
  const tokens = scan(source, limits);
  if (!tokens.ok) return tokens;
  try {
    const root = new Parser(tokens.value, source).root();
    return { ok: true, value: { root, tags: tokens.value.filter((token) => token.kind !== 'content').length } };
  } catch (error) {
    if (error instanceof SyntaxRefused) return syntaxError(source, error.at, error.what);
    throw error;
  }
}
