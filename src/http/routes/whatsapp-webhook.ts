import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { handleWhatsappWebhook } from '../../app/handle-whatsapp-webhook.ts';
import { WIRE_TEXTS } from '../../domain/wire-texts.ts';
import { sendRejection } from '../wire-errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The inbound side of the WhatsApp Cloud API, without an API key: Meta proves
// itself with the verify token (registration) and an HMAC of every delivery made
// with the app secret. Registered in its own encapsulated context, whose JSON
// parser keeps the raw bytes: the signature covers them, not a re-serialisation.

const PATH = '/webhooks/whatsapp';
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** Equal in constant time whatever the lengths: both sides are hashed first. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. */
export function validHubSignature(rawBody: Buffer, header: string | string[] | undefined, appSecret: string): boolean {
  const hex = typeof header === 'string' ? SIGNATURE.exec(header.trim())?.[1] : undefined;
  if (hex === undefined) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}

type VerifyQuery = { Querystring: Record<string, string | string[] | undefined> };

const tags = ['webhooks'];

export function whatsappWebhookRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.get<VerifyQuery>(PATH, {
    schema: {
      summary: 'Cloud API webhook registration: echoes hub.challenge when hub.verify_token matches', tags,
      querystring: {
        type: 'object',
        properties: { 'hub.mode': { type: 'string', enum: ['subscribe'] }, 'hub.verify_token': { type: 'string' }, 'hub.challenge': { type: 'string' } },
      },
    },
  }, async (request, reply) => {
    const { verifyToken } = deps.whatsappWebhook;
    const mode = request.query['hub.mode'];
    const token = request.query['hub.verify_token'];
    const challenge = request.query['hub.challenge'];
    const accepted = verifyToken !== undefined && mode === 'subscribe' && typeof token === 'string' && sameSecret(token, verifyToken)
      && typeof challenge === 'string' && challenge !== '';
    if (!accepted) return reply.code(403).send({ message: WIRE_TEXTS.invalidSignature });
    return reply.code(200).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(challenge);
  });

  app.post(PATH, {
    schema: {
      summary: 'Cloud API webhook: message statuses and inbound messages, signed with X-Hub-Signature-256', tags,
      headers: { type: 'object', required: ['x-hub-signature-256'], properties: { 'x-hub-signature-256': { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' } } },
    },
  }, async (request, reply) => {
    const { appSecret } = deps.whatsappWebhook;
    // Without the secret nothing can be verified; 503 makes Meta retry once it is set.
    if (appSecret === undefined) return sendRejection(reply, { code: 'storeUnavailable' });
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (!validHubSignature(raw, request.headers['x-hub-signature-256'], appSecret)) return sendRejection(reply, { code: 'invalidSignature' });

    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendRejection(reply, { code: 'invalidRequest1' });
    }
    const handled = await handleWhatsappWebhook(deps.app, body);
    request.log.debug(handled, 'whatsapp webhook');
    // A sender past the inbound bound: Meta retries a delivery that was not answered 2xx.
    if (handled.throttled > 0) return sendRejection(reply.header('retry-after', '60'), { code: 'storeUnavailable' });
    return reply.code(200).send({ received: true });
  });
}
