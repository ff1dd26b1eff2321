// POST /v1/whatsapp/sendTemplateMessage: the body's checks, and the template
// body's `{{1}}`, `{{2}}` … placeholders as WhatsApp (Meta) defines them.
import { ok, reject } from './result.ts';
import type { Result } from './result.ts';
import { isJsonObject, ownField } from './json-object.ts';

// n ≥ 1 without leading zeros, no spaces: `{{01}}` and `{{ 1 }}` are not placeholders.
const PLACEHOLDER = /\{\{([1-9][0-9]*)\}\}/g;
// The spec leaves the format open; Meta's own rule is E.164 digits, an optional '+'.
const DESTINATION = /^\+?[0-9]{8,15}$/;

export interface WhatsappRequest {
  /** Digits only, country code first, without '+'. */
  readonly destination: string;
  readonly templateId: string;
  readonly params: readonly string[];
}

/**
 * The highest placeholder index in the body (0 when none). Does not validate:
 * use `validateTemplateBody` when storing or approving a template.
 */
export function countTemplateParams(body: string): number {
  let highest = 0;
  for (const match of body.matchAll(PLACEHOLDER)) highest = Math.max(highest, Number(match[1]));
  return highest;
}

/**
 * Accepts a body whose placeholders are all `{{n}}` and use every index from 1 to
 * the highest (repeats allowed); anything else is `variableSyntax`.
 */
export function validateTemplateBody(body: string): Result<{ paramCount: number }> {
  const used = new Set<number>();
  let paramCount = 0;
  // A space, not '', so removing `{{1}}` from "{{{1}}{" cannot forge a new "{{".
  const rest = body.replace(PLACEHOLDER, (_placeholder, index: string) => {
    const n = Number(index);
    used.add(n);
    paramCount = Math.max(paramCount, n);
    return ' ';
  });
  // Leftover braces are a broken placeholder: `{{name}}`, `{{0}}`, `{{1`, `1}}`.
  if (rest.includes('{{') || rest.includes('}}')) return reject('variableSyntax');
  // Indexes are distinct integers ≥ 1, so "as many as the highest" means no gap.
  if (used.size !== paramCount) return reject('variableSyntax');
  return ok({ paramCount });
}

/** Fills `{{n}}` with params[n-1]; a placeholder without a param is left as written. */
export function renderWhatsappBody(body: string, params: readonly string[]): string {
  // A replacer function, so '$&' or '$1' in a param is inserted literally.
  return body.replace(PLACEHOLDER, (placeholder, index: string) => params[Number(index) - 1] ?? placeholder);
}

/** True when the request supplies exactly the template's parameters. */
export function paramsMatch(params: readonly string[], paramCount: number): boolean {
  return params.length === paramCount;
}

/** A destination as both WhatsApp operations accept it, as digits without the '+'; null when malformed. */
export function parseWhatsappDestination(value: unknown): string | null {
  return typeof value === 'string' && DESTINATION.test(value) ? value.replace(/^\+/, '') : null;
}

export function parseWhatsappRequest(body: unknown): Result<WhatsappRequest> {
  if (!isJsonObject(body)) return reject('invalidRequest1');

  const destination = parseWhatsappDestination(ownField(body, 'destination'));
  if (destination === null) return reject('invalidDestination');

  const templateId = ownField(body, 'templateId');
  if (typeof templateId !== 'string' || templateId.trim() === '') return reject('templateNotFound');

  const rawParams = ownField(body, 'params');
  let params: string[] = [];
  if (rawParams !== undefined) {
    if (!Array.isArray(rawParams)) return reject('paramsMismatch');
    params = [];
    // Index loop, not `every`, so a hole counts as a non-string.
    for (let i = 0; i < rawParams.length; i++) {
      const param: unknown = rawParams[i];
      if (typeof param !== 'string') return reject('paramsMismatch');
      params.push(param);
    }
  }

  return ok({ destination, templateId, params });
}
