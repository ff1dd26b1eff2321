import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { confirmSubscription, describeConfirmation, type ConfirmationPage } from '../../app/confirm-subscription.ts';
import { CONFIRMATION_LINK_DAYS } from '../../campaigns/consent-token.ts';
import { escapeHtml, invalidLinkPage, recipientPage } from '../recipient-page.ts';
import type { RouteDeps } from '../route-deps.ts';
import { DEFAULT_LOCALE, type Locale } from '../../domain/locale.ts';
import { textsFor } from '../../i18n/server-texts.ts';
import { requestLocale } from '../request-locale.ts';

// The double opt-in link of a confirmation email, without an API key: the signed token
// in the path is the only credential. GET shows a page with a button; only its POST
// confirms (mail scanners fetch links, and must not subscribe anyone). Registered in
// its own context, beside tracking's routes: its body parser applies here only.

const FORM_BODY_LIMIT = 16 * 1024;
type TokenParams = { Params: { token: string } };
const params = { type: 'object', required: ['token'], properties: { token: { type: 'string', description: 'Signed token (compact JWS) from the confirmation email' } } } as const;
const tags = ['consent'];
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

function show(reply: FastifyReply, page: ConfirmationPage, locale: Locale = DEFAULT_LOCALE): FastifyReply {
  const t = textsFor(locale, 'pages');
  const text = (key: string, values: Record<string, string | number> = {}): string => escapeHtml(t(key, values));
  const send = (status: number, title: string, body: string): FastifyReply => recipientPage(reply, status, t(title), body, locale);
  if (!('address' in page)) {
    if (page.kind === 'invalid') return invalidLinkPage(reply, locale);
    return send(410, 'confirmation.expiredTitle', `<h1>${text('confirmation.expiredHeading')}</h1>\n<p>${text('confirmation.expiredBody', { days: CONFIRMATION_LINK_DAYS })}</p>`);
  }
  // The catalogue's words are herald's own (no markup); what the link names is escaped.
  const names = { address: `<strong>${escapeHtml(page.address)}</strong>`, list: `“${escapeHtml(page.listName)}”`, sender: escapeHtml(page.senderName) };
  const sentence = (key: string): string => t(key, names);
  switch (page.kind) {
    case 'ask':
      return send(200, 'confirmation.askTitle', `<h1>${text('confirmation.askTitle')}</h1>
<p>${sentence('confirmation.askBody')}</p>
<form method="post" action="">
<button type="submit">${text('confirmation.askButton')}</button>
</form>`);
    case 'confirmed':
    case 'already-confirmed':
      return send(200, 'confirmation.confirmedTitle', `<h1>${text('confirmation.confirmedTitle')}</h1>\n<p>${sentence('confirmation.confirmedBody')}</p>`);
    case 'withdrawn':
      return send(410, 'confirmation.withdrawnTitle', `<h1>${text('confirmation.withdrawnHeading')}</h1>\n<p>${sentence('confirmation.withdrawnBody')}</p>`);
  }
}

export function consentRoutes(app: FastifyInstance, deps: RouteDeps): void {
  // The form's POST carries nothing that is read: any body, up to a small bound.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get<TokenParams>('/confirm/:token', {
    schema: {
      summary: 'Double opt-in link: a page naming the address and the list, with a button (a GET never confirms)', tags, params,
      response: { 200: html('The question and its button, or that the subscription is confirmed'), 404: html('Forged or altered token'), 410: html('Expired token, or unsubscribed since') },
    },
  }, async (request, reply) => show(reply, await describeConfirmation(deps.app, request.params.token), requestLocale(request)));

  app.post<TokenParams>('/confirm/:token', {
    schema: {
      summary: 'Confirms the subscription (the page\'s button); recorded with source `link`, the IP and the User-Agent', tags, params,
      response: { 200: html('Confirmed (or already)'), 404: html('Forged or altered token'), 410: html('Expired token, or unsubscribed since') },
    },
  }, async (request: FastifyRequest<TokenParams>, reply) =>
    show(reply, await confirmSubscription(deps.app, request.params.token, { ip: request.ip, userAgent: request.headers['user-agent'] }), requestLocale(request)));
}
