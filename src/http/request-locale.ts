import type { FastifyRequest } from 'fastify';
import { isLocale, localeFromAcceptLanguage, type Locale } from '../domain/locale.ts';

// Which of herald's languages a request is answered in, where herald writes words of its
// own (public pages, its emails): a `lang` query parameter (a link can fix the language),
// else the browser's Accept-Language; undefined when neither names one (English then).
// Never for the interface's own error texts: those are the contract's, as written.

export function requestLocale(request: FastifyRequest): Locale | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const asked = query?.lang;
  if (isLocale(asked)) return asked;
  return localeFromAcceptLanguage(request.headers['accept-language']);
}

/** An invitation's language: the inviting user's own, else the request's (docs/languages.md). */
export function invitationLocale(request: FastifyRequest): Locale | undefined {
  const principal = request.caller?.principal;
  return (principal?.kind === 'user' ? principal.user.locale : null) ?? requestLocale(request);
}
