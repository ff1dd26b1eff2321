import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { AdminTokenCheck } from '../app/admin-token.ts';
import type { KeyDeps } from '../app/api-keys.ts';
import type { WebhookUrlCheck } from '../app/webhook-settings.ts';
import { apiKeyHook } from './plugins/api-key-auth.ts';
import { declareRouteAccess, routeAccessHook } from './route-access.ts';
import type { AccountRateLimiter } from './plugins/rate-limit.ts';
import { accountRoutes } from './routes/account.ts';
import { adminRoutes } from './routes/admin/admin-routes.ts';
import { certificateRoutes, jwksRoutes } from './routes/certificates.ts';
import { messageRoutes } from './routes/messages.ts';
import { templateRoutes } from './routes/templates.ts';
import { domainRoutes } from './routes/domains.ts';
import { whatsappWebhookRoutes } from './routes/whatsapp-webhook.ts';
import { trackingRoutes } from './routes/tracking.ts';
import { suppressionRoutes } from './routes/suppressions.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { sendRoutes } from './routes/send.ts';
import { listRoutes } from './routes/lists.ts';
import { contactRoutes } from './routes/contacts.ts';
import { consentRoutes } from './routes/consent.ts';
import { segmentRoutes } from './routes/segments.ts';
import { contactImportRoutes } from './routes/contact-imports.ts';
import { WIRE_TEXTS } from '../domain/wire-texts.ts';
import { sendRejection } from './wire-errors.ts';
import { eventWebhooks } from './schemas.ts';
import { webAppRoutes } from './web-app.ts';

export interface HttpDeps {
  readonly app: KeyDeps;
  readonly adminToken: AdminTokenCheck;
  readonly rateLimiter: AccountRateLimiter;
  readonly logger: Logger | false;
  readonly trustProxy: boolean | number | string;
  readonly bodyLimitBytes: number;
  /** Largest contact import body (HERALD_IMPORT_BODY_LIMIT): imports are streamed into the store, not parsed in memory. */
  readonly importBodyLimitBytes: number;
  /** Inbound Cloud API webhook: the app secret that signs it and the registration token. */
  readonly whatsappWebhook: { readonly appSecret: string | undefined; readonly verifyToken: string | undefined };
  /** The private-address guard for webhook URLs an account sets (HERALD_FETCH_ALLOW_PRIVATE lifts it). */
  readonly checkWebhookUrl: WebhookUrlCheck;
  /** A worker process: only /healthz and /readyz, for orchestrators' health checks. */
  readonly healthOnly?: boolean;
  /** The built web application served at /app; absent: web/dist of this tree. */
  readonly webRoot?: string;
}

const SEND_ROUTES = new Set(['/v1/email', '/v1/sms/send', '/v1/whatsapp/sendTemplateMessage', '/v1/whatsapp/sendMessage']);

const trustHops = (hops: number) => (_address: string, hop: number): boolean => hop < hops;

/** Builds the HTTP API; never listens (tests use inject, main.ts calls listen). */
export async function buildApp(deps: HttpDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger === false ? { logger: false } : { loggerInstance: deps.logger }),
    // A hop count trusts the nearest N proxies (Fastify's types omit the number form).
    trustProxy: typeof deps.trustProxy === 'number' ? trustHops(deps.trustProxy) : deps.trustProxy,
    bodyLimit: deps.bodyLimitBytes,
    // `__proto__` and `constructor.prototype` keys are dropped from JSON bodies:
    // they change nothing, and the request is served as if they were absent.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    // Tracking and unsubscribe tokens travel in the path; a click token carries its URL.
    routerOptions: { maxParamLength: 4096 },
  }) as unknown as FastifyInstance;

  // The interface is JSON only; Fastify's default text/plain parser would hand a
  // string to the use cases, and a 415 says more than "missing parameters".
  app.removeContentTypeParser('text/plain');

  // Schemas are documentation for the wire routes: never reject, never reshape.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  if (deps.healthOnly !== true) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'herald', version: '1.0.0', description: 'Email, SMS and WhatsApp template messages for prepaid accounts.' },
        components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, adminToken: { type: 'http', scheme: 'bearer' } } },
        webhooks: eventWebhooks(),
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const routeUrl = request.routeOptions.url ?? '';
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendRejection(reply, { code: 'bodyTooLarge' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendRejection(reply, { code: 'unsupportedMediaType' });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendRejection(reply, { code: 'invalidRequest1' });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendRejection(reply, { code: 'invalidField', detail: error.message });
    }
    request.log.error({ err: error }, 'request failed');
    // The spec's text for a send that failed inside the service.
    if (SEND_ROUTES.has(routeUrl)) return sendRejection(reply, { code: 'sendFailed' });
    return reply.code(500).send({ message: WIRE_TEXTS.authInternal });
  });
  app.setNotFoundHandler((_request, reply) => sendRejection(reply, { code: 'notFound' }));

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.app.db);
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not reachable');
      return sendRejection(reply, { code: 'storeUnavailable' });
    }
  });

  if (deps.healthOnly === true) return app;

  await app.register(async (v1) => {
    v1.addHook('onRoute', declareRouteAccess);
    v1.addHook('onRequest', apiKeyHook({ keys: deps.app, rateLimiter: deps.rateLimiter }));
    v1.addHook('onRequest', routeAccessHook);
    sendRoutes(v1, deps.app);
    messageRoutes(v1, deps.app);
    templateRoutes(v1, deps.app);
    domainRoutes(v1, deps.app);
    certificateRoutes(v1, deps.app);
    suppressionRoutes(v1, deps.app);
    webhookRoutes(v1, deps);
    listRoutes(v1, deps.app);
    contactRoutes(v1, deps.app);
    segmentRoutes(v1, deps.app);
    accountRoutes(v1, deps.app);
    await v1.register(async (imports) => contactImportRoutes(imports, deps.app, deps.importBodyLimitBytes));
  });
  await app.register(async (inbound) => whatsappWebhookRoutes(inbound, deps));
  await app.register(async (recipient) => trackingRoutes(recipient, deps));
  await app.register(async (subscriber) => consentRoutes(subscriber, deps));
  await app.register(async (admin) => adminRoutes(admin, deps));
  await app.register(async (open) => jwksRoutes(open, deps.app));
  await app.register(async (web) => webAppRoutes(web, deps.webRoot));

  return app;
}
