import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { confirmSubscription, describeConfirmation, type ConfirmationPage } from '../../app/confirm-subscription.ts';
import { CONFIRMATION_LINK_DAYS } from '../../campaigns/consent-token.ts';
import { escapeHtml, invalidLinkPage, recipientPage } from '../recipient-page.ts';
import type { RouteDeps } from '../route-deps.ts';

// The double opt-in link of a confirmation email, without an API key: the signed token
// in the path is the only credential. GET shows a page with a button; only its POST
// confirms (mail scanners fetch links, and must not subscribe anyone). Registered in
// its own context, beside tracking's routes: its body parser applies here only.

const FORM_BODY_LIMIT = 16 * 1024;
type TokenParams = { Params: { token: string } };
const params = { type: 'object', required: ['token'], properties: { token: { type: 'string', description: 'Signed token (compact JWS) from the confirmation email' } } } as const;
const tags = ['consent'];
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

function show(reply: FastifyReply, page: ConfirmationPage): FastifyReply {
  if (!('address' in page)) {
    if (page.kind === 'invalid') return invalidLinkPage(reply);
    return recipientPage(reply, 410, 'Link expired', `<h1>This link has expired</h1>\n<p>Confirmation links work for ${CONFIRMATION_LINK_DAYS} days. Sign up again to get a new one.</p>`);
  }
  const who = `<strong>${escapeHtml(page.address)}</strong>`;
  const list = `“${escapeHtml(page.listName)}”`;
  switch (page.kind) {
    case 'ask':
      return recipientPage(reply, 200, 'Confirm your subscription', `<h1>Confirm your subscription</h1>
<p>Should ${who} receive email from ${escapeHtml(page.senderName)} on the list ${list}?</p>
<form method="post" action="">
<button type="submit">Confirm subscription</button>
</form>`);
    case 'confirmed':
    case 'already-confirmed':
      return recipientPage(reply, 200, 'Subscription confirmed', `<h1>Subscription confirmed</h1>\n<p>${who} is subscribed to ${list}.</p>`);
    case 'withdrawn':
      return recipientPage(reply, 410, 'Subscription cancelled', `<h1>This subscription was cancelled</h1>\n<p>${who} left ${list} after this email was sent. Sign up again to receive it.</p>`);
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
  }, async (request, reply) => show(reply, await describeConfirmation(deps.app, request.params.token)));

  app.post<TokenParams>('/confirm/:token', {
    schema: {
      summary: 'Confirms the subscription (the page\'s button); recorded with source `link`, the IP and the User-Agent', tags, params,
      response: { 200: html('Confirmed (or already)'), 404: html('Forged or altered token'), 410: html('Expired token, or unsubscribed since') },
    },
  }, async (request: FastifyRequest<TokenParams>, reply) =>
    show(reply, await confirmSubscription(deps.app, request.params.token, { ip: request.ip, userAgent: request.headers['user-agent'] })));
}
