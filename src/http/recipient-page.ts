import type { FastifyReply } from 'fastify';
import { DEFAULT_LOCALE, type Locale } from '../domain/locale.ts';
import { textsFor } from '../i18n/server-texts.ts';
import { pageCsp } from './security-headers.ts';

// The small HTML pages herald shows the people its email reaches (unsubscribe,
// subscription confirmation): self-contained, no scripts, no external resources,
// never framed, never cached by a referrer.

export const escapeHtml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}';
const CSP = pageCsp(STYLE);

/** Sends a page in `locale` (its <html lang>); `body` is HTML the caller escaped. */
export function recipientPage(reply: FastifyReply, status: number, title: string, body: string, locale: Locale = DEFAULT_LOCALE): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .send(`<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head><body>
${body}
</body></html>
`);
}

export function invalidLinkPage(reply: FastifyReply, locale: Locale = DEFAULT_LOCALE): FastifyReply {
  const t = textsFor(locale, 'pages');
  return recipientPage(reply, 404, t('invalidLink.title'), `<h1>${escapeHtml(t('invalidLink.heading'))}</h1>\n<p>${escapeHtml(t('invalidLink.body'))}</p>`, locale);
}
