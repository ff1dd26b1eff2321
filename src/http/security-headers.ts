import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

// The headers of every answer, and the Content-Security-Policy of each kind of page:
// one source. Every answer (JSON, errors, 404s, static files, pages) carries
// `X-Content-Type-Options: nosniff`, and `Strict-Transport-Security` when the public
// URL is https. An HTML answer carries the policy of its kind of page, each with
// `frame-ancestors` (none: never framed; the email preview: only by herald's own pages);
// an HTML answer whose route set none gets the strictest (runs and loads nothing).
// A small onSend hook rather than @fastify/helmet: helmet sets a dozen headers with
// defaults of its own (its CSP allows inline styles and https: everywhere), and herald
// needs exactly these, one policy per kind of page, with nothing from a CDN.

/** The web application (/app): herald's own scripts, styles and API only. */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  // The email preview (same origin, sandboxed by the page and by its own CSP).
  "frame-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The API reference (/docs, Swagger UI): its bundle, stylesheets and initializer are
 * files served by herald (no inline script); the logo is a data: URL; "Try it out"
 * calls this origin. Nothing from a CDN, no validator badge. The one inline style
 * element the bundle of swagger-ui-dist adds is allowed by its hash (a new version
 * with another one fails test/http/security-headers.test.ts in Chromium).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * herald's small server-rendered pages (unsubscribe, confirmation, certificate): no
 * script, and only their own style element, allowed by the hash of its text (the
 * `<style>` element's content, exactly).
 */
export function pageCsp(style: string): string {
  const hash = createHash('sha256').update(style, 'utf8').digest('base64');
  return `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}

/** Any other HTML answer: runs and loads nothing, is never framed. */
export const DEFAULT_HTML_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** One year; not includeSubDomains: herald does not speak for the other names under its domain. */
export const HSTS = 'max-age=31536000';

/** The headers of every page and asset of the web application. */
export const APP_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': APP_CSP,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const isHtml = (type: unknown): boolean => typeof type === 'string' && /^\s*text\/html\b/i.test(type);

/** onSend on the root instance (so 404s, errors and every plugin's answers get it), before any route. */
export function securityHeaders(app: FastifyInstance, options: { readonly publicUrl: string }): void {
  const https = options.publicUrl.startsWith('https:');
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    if (https) reply.header('strict-transport-security', HSTS);
    if (isHtml(reply.getHeader('content-type')) && !reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', DEFAULT_HTML_CSP);
    }
  });
}
