import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  describeUnsubscribe, recordEngagement, unsubscribe, verifyTrackingToken, type UnsubscribeSubject, type Visit,
} from '../../app/record-engagement.ts';
import { invalidLinkPage, recipientPage } from '../recipient-page.ts';
import { confirmationText, doneText, everyListLabel, unsubscribeButton } from '../unsubscribe-pages.ts';
import { requestLocale } from '../request-locale.ts';
import { DEFAULT_LOCALE, type Locale } from '../../domain/locale.ts';
import { reportUnexpected } from '../failed-request.ts';
import { sendRejection } from '../wire-errors.ts';
import { applicationError } from '../schemas/errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The recipient's side of an email, without an API key: the open pixel, tracked links
// and the unsubscribe link (List-Unsubscribe and RFC 8058 one-click). The signed token
// in the path is the only credential; a forged, altered or expired one gets 404 and
// nothing is recorded. Nothing here may be cached: every fetch is an event.
//
// Registered in its own context: its body parsers (forms, for the unsubscribe POST)
// apply to these routes only.

// A transparent 1×1 GIF89a.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** Largest unsubscribe POST body read: RFC 8058's is one short field. */
const FORM_BODY_LIMIT = 16 * 1024;

type TokenParams = { Params: { token: string } };
const params = { type: 'object', required: ['token'], properties: { token: { type: 'string', description: 'Signed token (compact JWS) from the message' } } } as const;
const tags = ['tracking'];
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const plain = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
const oneClickForm = {
  type: 'object',
  properties: {
    'List-Unsubscribe': { type: 'string', const: 'One-Click', description: 'RFC 8058; not required: the POST itself is the request' },
    via: { type: 'string', const: 'page', description: 'Sent by the confirmation page\'s form: the answer is an HTML page' },
    scope: { type: 'string', const: 'all', description: 'From the page of a campaign message: leave every list of the account, not only the campaign\'s' },
  },
} as const;

const visitOf = (request: FastifyRequest): Visit => ({ method: request.method, ip: request.ip, userAgent: request.headers['user-agent'] });

function confirmationPage(reply: FastifyReply, subject: UnsubscribeSubject, locale: Locale): FastifyReply {
  const text = confirmationText(subject, locale);
  if (!text.form) return recipientPage(reply, 200, text.title, text.body, locale);
  // A GET never unsubscribes: link scanners fetch every link. The person confirms with a POST.
  // A campaign's link leaves its lists; the person may choose every list of the sender.
  const everyList = subject.campaign
    ? `\n<p><label><input type="checkbox" name="scope" value="all"> ${everyListLabel(subject.senderName, locale)}</label></p>`
    : '';
  return recipientPage(reply, 200, text.title, `${text.body}
<form method="post" action="">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<input type="hidden" name="via" value="page">${everyList}
<button type="submit">${unsubscribeButton(locale)}</button>
</form>`, locale);
}

/** The fields of a form body (urlencoded or multipart); none when there is no form. */
async function formFields(request: FastifyRequest): Promise<URLSearchParams> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const type = request.headers['content-type'] ?? '';
  if (/^application\/x-www-form-urlencoded\b/i.test(type)) return new URLSearchParams(body.toString('utf8'));
  if (/^multipart\/form-data\b/i.test(type)) {
    // RFC 8058 prefers multipart/form-data; the platform's own parser reads it.
    try {
      const form = await new Response(body, { headers: { 'content-type': type } }).formData();
      return new URLSearchParams([...form].flatMap(([name, value]): [string, string][] => (typeof value === 'string' ? [[name, value]] : [])));
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams();
}

export function trackingRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const keys = deps.app;
  // Any body is read as bytes (up to FORM_BODY_LIMIT) and parsed by the unsubscribe
  // handler: a one-click POST must not fail on a content type it did not expect.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.get<TokenParams>('/t/o/:token', {
    schema: {
      summary: 'Open pixel: a 1×1 GIF; records email.opened (machine: true for prefetchers)', tags, params,
      response: {
        200: { description: 'A transparent 1×1 GIF (43 bytes)', content: { 'image/gif': { schema: { type: 'string', format: 'binary' } } } },
        404: { description: 'Forged, altered or expired token (`Not found`); nothing recorded', content: { 'application/json': { schema: applicationError } } },
      },
    },
  }, async (request, reply) => {
    const claims = await verifyTrackingToken(keys, request.params.token, 'open');
    if (!claims) return sendRejection(reply, { code: 'notFound' });
    try {
      if ((await recordEngagement(keys, claims, visitOf(request))) === 'unknown-message') return sendRejection(reply, { code: 'notFound' });
    } catch (error) {
      // The image is served all the same: the reader's client must not show a broken image.
      reportUnexpected(request, deps.app.metrics, error, 'open not recorded');
    }
    return reply.code(200).header('content-type', 'image/gif').send(PIXEL);
  });

  app.get<TokenParams>('/t/c/:token', {
    schema: {
      summary: 'Tracked link: 302 to the URL signed in the token; records email.clicked (machine: true for link scanners)', tags, params,
      response: { 302: { description: 'Location: the link as the message had it', type: 'null' }, 404: html('Forged, altered or expired token; nothing recorded') },
    },
  }, async (request, reply) => {
    const claims = await verifyTrackingToken(keys, request.params.token, 'click');
    if (!claims) return invalidLinkPage(reply, requestLocale(request));
    try {
      if ((await recordEngagement(keys, claims, visitOf(request))) === 'unknown-message') return invalidLinkPage(reply, requestLocale(request));
    } catch (error) {
      // The person's link works all the same; only the event is missing.
      reportUnexpected(request, deps.app.metrics, error, 'click not recorded');
    }
    // The URL parser's form is plain ASCII (punycode, percent-encoding): a valid Location.
    return reply.code(302).header('location', new URL(claims.url).href).send();
  });

  app.get<TokenParams>('/u/:token', {
    schema: {
      summary: 'Unsubscribe page: asks the recipient to confirm (a GET never unsubscribes)', tags, params,
      response: { 200: html('A page naming the address, with a button that POSTs the form back'), 404: html('Forged, altered or expired token') },
    },
  }, async (request, reply) => {
    const claims = await verifyTrackingToken(keys, request.params.token, 'unsubscribe');
    const subject = claims && (await describeUnsubscribe(keys, claims));
    return subject ? confirmationPage(reply, subject, requestLocale(request) ?? DEFAULT_LOCALE) : invalidLinkPage(reply, requestLocale(request));
  });

  app.post<TokenParams>('/u/:token', {
    schema: {
      summary: 'Unsubscribe (RFC 8058 one-click, List-Unsubscribe=One-Click, or the page\'s form): the address is suppressed and email.unsubscribed fires once',
      tags, params,
      body: { content: { 'application/x-www-form-urlencoded': { schema: oneClickForm }, 'multipart/form-data': { schema: oneClickForm } } },
      response: {
        200: { description: '`Unsubscribed` (text/plain) for one-click; an HTML page for the form', content: { 'text/plain': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } } } },
        404: plain('Forged, altered or expired token (`Not found`); an HTML page for the form'),
      },
    },
  }, async (request, reply) => {
    const claims = await verifyTrackingToken(keys, request.params.token, 'unsubscribe');
    const fields = await formFields(request);
    const fromPage = fields.get('via') === 'page';
    // The POST itself is the request to unsubscribe (scanners do not POST); its body is
    // not required to carry List-Unsubscribe=One-Click, so no odd client fails a person.
    const scope = fromPage && fields.get('scope') === 'all' ? 'all' : 'campaign';
    const done = claims && (await unsubscribe(keys, claims, { ...visitOf(request), via: fromPage ? 'page' : 'one-click', scope }));
    if (!done) return fromPage ? invalidLinkPage(reply, requestLocale(request)) : reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
    if (fromPage) {
      const locale = requestLocale(request) ?? DEFAULT_LOCALE;
      const text = doneText(done, locale);
      return recipientPage(reply, 200, text.title, text.body, locale);
    }
    return reply.code(200).header('content-type', 'text/plain; charset=utf-8').send('Unsubscribed\n');
  });
}
