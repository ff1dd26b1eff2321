import Fastify, { LogController, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { StoreOutage } from '../app/store-outage.ts';
import { v1AuthenticationHook } from './plugins/session-auth.ts';
import { meRoutes } from './routes/me.ts';
import { liveEventRoutes } from './routes/live-events.ts';
import { operatorSessionRoutes } from './routes/admin/operator-session.ts';
import { signInRoutes } from './routes/sign-in.ts';
import { userRoutes } from './routes/users.ts';
import { requestLog } from './plugins/request-log.ts';
import { apiRequestRoutes, recordKeyRequests } from './routes/api-requests.ts';
import { healthRoutes } from './routes/health.ts';
import { declareRouteAccess, routeAccessHook } from './route-access.ts';
import { accountRoutes } from './routes/account.ts';
import { smtpSettingsRoutes } from './routes/smtp-settings.ts';
import { adminRoutes } from './routes/admin/admin-routes.ts';
import { certificateRoutes, jwksRoutes } from './routes/certificates.ts';
import { messageRoutes } from './routes/messages.ts';
import { messageScheduleRoutes } from './routes/message-schedule.ts';
import { inboundRoutes } from './routes/inbound.ts';
import { consentLedgerRoutes } from './routes/consent-ledger.ts';
import { smsKeywordRoutes } from './routes/sms-keywords.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { templateRoutes } from './routes/templates.ts';
import { domainRoutes } from './routes/domains.ts';
import { receivingDomainRoutes } from './routes/receiving-domains.ts';
import { whatsappWebhookRoutes } from './routes/whatsapp-webhook.ts';
import { trackingRoutes } from './routes/tracking.ts';
import { suppressionRoutes } from './routes/suppressions.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.ts';
import { sendRoutes } from './routes/send.ts';
import { sendBatchRoutes } from './routes/send-batch.ts';
import { listRoutes } from './routes/lists.ts';
import { contactRoutes } from './routes/contacts.ts';
import { consentRoutes } from './routes/consent.ts';
import { segmentRoutes } from './routes/segments.ts';
import { contactImportRoutes } from './routes/contact-imports.ts';
import { campaignRoutes } from './routes/campaigns.ts';
import { sendRejection } from './wire-errors.ts';
import { useBoundedJsonParser } from './json-body.ts';
import { addRequestIdHeader, failedRequestHandler, noteStoreAnswers, requestIdOf } from './failed-request.ts';
import { inputValidator } from './input-validation.ts';
import { ACCOUNT_API_STYLE, OPERATOR_API_STYLE } from '../domain/schema-check.ts';
import { eventWebhooks } from './schemas/webhooks.ts';
import { finishDocument, referencePageLook } from './openapi-document.ts';
import type { OpenAPIV3_1 } from 'openapi-types';
import { SESSION_COOKIE } from './schemas/sessions.ts';
import { limitDocs } from './limits-table.ts';
import { clientErrorHandler, timeoutOptions } from './client-connections.ts';
import type { RouteDeps } from './route-deps.ts';
import { lingerWhenClosingEarly } from './lingering-close.ts';
import { webAppRoutes } from './web-app.ts';
import { DOCS_CSP, securityHeaders } from './security-headers.ts';

const trustHops = (hops: number) => (_address: string, hop: number): boolean => hop < hops;

/** Builds the HTTP API; never listens (tests use inject, main.ts calls listen). */
export async function buildApp(deps: RouteDeps): Promise<FastifyInstance> {
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
    ...timeoutOptions(deps.timeouts),
    clientErrorHandler: clientErrorHandler(deps.app.metrics),
    // One line per request, with the account, from plugins/request-log.ts instead.
    logController: new LogController({ disableRequestLogging: true }),
    // Every answer carries x-request-id (http/failed-request.ts).
    genReqId: requestIdOf,
  }) as unknown as FastifyInstance;
  addRequestIdHeader(app);
  // nosniff on every answer, HSTS on an https public URL, a CSP on every HTML answer.
  securityHeaders(app, { publicUrl: deps.app.publicUrl });
  // A refusal before the body is read reaches a client that is still writing it.
  lingerWhenClosingEarly(app);
  requestLog(app);

  // The interface is JSON only; Fastify's default text/plain parser would hand a
  // string to the use cases, and a 415 says more than "missing parameters".
  app.removeContentTypeParser('text/plain');
  // Session cookies (the web application and the operator console): parsed on every request, set by sign-in.
  await app.register(cookie);
  // UTF-8 only, bounded in depth and element count before JSON.parse (prototype keys removed as above).
  useBoundedJsonParser(app);

  // Outside /v1 and /admin/v1 (the recipient's pages, the inbound webhook) schemas are
  // documentation: never reject, never reshape. The account and operator APIs check the
  // inputs herald owns (TypeBox schemas) with input-validation.ts, each in its own style.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  if (deps.healthOnly !== true) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'herald API', version: '1.0.0', description: 'Email, SMS and WhatsApp template messages for prepaid accounts.' },
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            adminToken: { type: 'http', scheme: 'bearer' },
            sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The web application\'s session (POST /v1/auth/sign-in); changes also need `X-CSRF-Token`' },
          },
        },
        webhooks: eventWebhooks(),
        // The request limits in effect on this server (README "Limits"); an extension, which the types do not list.
        ...{ 'x-herald-limits': limitDocs(deps.app.limits) },
      },
      // operationIds, servers, security and the answers every route of a kind gives (openapi-document.ts).
      transformObject: (built) => finishDocument(('openapiObject' in built ? built.openapiObject : {}) as OpenAPIV3_1.Document, { publicUrl: deps.app.publicUrl }),
    });
    // The groups open folded: swagger-ui 5 stops rendering a 3.1 document of this size after
    // the first group when every operation is expanded at once (test/http/security-headers.test.ts).
    await app.register(swaggerUi, { routePrefix: '/docs', ...referencePageLook, uiConfig: { docExpansion: 'none' }, staticCSP: DOCS_CSP });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }

  // The database not answering: 503 with Retry-After on every route, logged once per outage.
  const outage = new StoreOutage(deps.app.metrics, deps.app.clock);
  noteStoreAnswers(app, outage);
  app.setErrorHandler(failedRequestHandler(deps.app.metrics, outage));
  app.setNotFoundHandler((_request, reply) => sendRejection(reply, { code: 'notFound' }));

  healthRoutes(app, deps, outage);

  if (deps.healthOnly === true) return app;

  await app.register(async (v1) => {
    v1.setValidatorCompiler(inputValidator(ACCOUNT_API_STYLE));
    recordKeyRequests(v1, deps.apiRequestLog);
    v1.addHook('onRoute', declareRouteAccess);
    v1.addHook('onRequest', v1AuthenticationHook({ app: deps.app, rateLimiter: deps.rateLimiter, outage }));
    v1.addHook('onRequest', routeAccessHook);
    meRoutes(v1, deps);
    liveEventRoutes(v1, deps);
    userRoutes(v1, deps);
    sendRoutes(v1, deps);
    sendBatchRoutes(v1, deps);
    messageRoutes(v1, deps);
    messageScheduleRoutes(v1, deps);
    inboundRoutes(v1, deps);
    consentLedgerRoutes(v1, deps);
    smsKeywordRoutes(v1, deps);
    conversationRoutes(v1, deps);
    templateRoutes(v1, deps);
    domainRoutes(v1, deps);
    receivingDomainRoutes(v1, deps);
    certificateRoutes(v1, deps);
    suppressionRoutes(v1, deps);
    webhookRoutes(v1, deps);
    webhookEndpointRoutes(v1, deps);
    listRoutes(v1, deps);
    contactRoutes(v1, deps);
    segmentRoutes(v1, deps);
    campaignRoutes(v1, deps);
    accountRoutes(v1, deps);
    apiRequestRoutes(v1, deps);
    smtpSettingsRoutes(v1, deps);
    await v1.register(async (imports) => contactImportRoutes(imports, deps));
  });
  await app.register(async (signIn) => {
    signIn.setValidatorCompiler(inputValidator(ACCOUNT_API_STYLE));
    signInRoutes(signIn, deps);
  });
  // The console's sign-in words its refusals as /v1 does (it always has).
  await app.register(async (operatorConsole) => {
    operatorConsole.setValidatorCompiler(inputValidator(ACCOUNT_API_STYLE));
    operatorSessionRoutes(operatorConsole, deps);
  });
  await app.register(async (inbound) => whatsappWebhookRoutes(inbound, deps));
  await app.register(async (recipient) => trackingRoutes(recipient, deps));
  await app.register(async (subscriber) => consentRoutes(subscriber, deps));
  await app.register(async (admin) => {
    admin.setValidatorCompiler(inputValidator(OPERATOR_API_STYLE));
    adminRoutes(admin, deps);
  });
  await app.register(async (open) => jwksRoutes(open, deps));
  await app.register(async (web) => webAppRoutes(web, deps.webRoot));

  return app;
}
