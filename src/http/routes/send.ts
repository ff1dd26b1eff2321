import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/deps.ts';
import { sendEmail } from '../../app/send-email.ts';
import { sendSms } from '../../app/send-sms.ts';
import { sendWhatsapp } from '../../app/send-whatsapp.ts';
import { sendWhatsappSession } from '../../app/send-whatsapp-session.ts';
import type { Account } from '../../domain/account.ts';
import type { KeyMode } from '../../domain/key-mode.ts';
import type { Result } from '../../domain/result.ts';
import { idempotencyDocs, REPLAYED, sendWithIdempotencyKey } from '../plugins/idempotency.ts';
import { callerOf, sendingMode } from '../route-access.ts';
import { sendRejection } from '../wire-errors.ts';
import { commonErrors } from '../schemas/errors.ts';
import { emailRequest, emailResponse, smsRequest, smsResponse, whatsappRequest, whatsappResponse } from '../schemas/sends.ts';
import type { RouteDeps } from '../route-deps.ts';

type SendUseCase = (deps: AppDeps, account: Account, body: unknown, mode: KeyMode) => Promise<Result<unknown>>;

// The send operations: the spec's three and WhatsApp session messages. Each is: its channel's scope, one use case, its Result
// written as the spec's 200 body or error body.
const OPERATIONS = [
  { url: '/v1/email', scope: 'email', useCase: sendEmail, summary: 'Send an email', body: emailRequest, ok: emailResponse },
  { url: '/v1/sms/send', scope: 'sms', useCase: sendSms, summary: 'Send an SMS to one or many numbers', body: smsRequest, ok: smsResponse },
  {
    url: '/v1/whatsapp/sendTemplateMessage', scope: 'whatsapp', useCase: sendWhatsapp,
    summary: 'Send a WhatsApp template message', body: whatsappRequest, ok: whatsappResponse,
  },
  {
    url: '/v1/whatsapp/sendMessage', scope: 'whatsapp', useCase: sendWhatsappSession,
    summary: 'Send a WhatsApp text (session) message to a destination that wrote in the last 24 hours',
    body: {
      type: 'object', required: ['destination', 'message'],
      properties: { destination: whatsappRequest.properties.destination, message: { type: 'string', minLength: 1, maxLength: 4096 } },
    },
    ok: whatsappResponse,
  },
] as const satisfies readonly { url: string; scope: string; useCase: SendUseCase; summary: string; body: object; ok: object }[];

export function sendRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  for (const operation of OPERATIONS) {
    app.post(operation.url, {
      // Texts have no attachments: their bodies are bounded far below the email's (413 before
      // reading), and never above the server's HERALD_BODY_LIMIT.
      ...(operation.scope === 'email' ? {} : { bodyLimit: Math.min(deps.limits.maxTextRequestBytes, app.initialConfig.bodyLimit ?? Infinity) }),
      schema: {
        summary: operation.summary,
        tags: ['send'],
        body: operation.body,
        headers: idempotencyDocs.headers,
        response: { 200: { ...operation.ok, headers: idempotencyDocs.replayHeaders }, ...commonErrors, ...idempotencyDocs.responses },
      },
      config: { access: { scope: operation.scope, access: 'write' } },
      // Every answer, refusals before the handler (401, 403, 413, 429) and failures (5xx) included:
      // from the request's arrival (authentication, rate limit and body included) to its answer.
      onResponse: async (_request, reply) => deps.metrics.acceptObserved(operation.scope, reply.statusCode, reply.elapsedTime / 1000),
    }, async (request, reply) => {
      const account = callerOf(request).account;
      const mode = sendingMode(request);
      const result = await sendWithIdempotencyKey(deps, request, reply, (sendDeps) => (operation.useCase as SendUseCase)({ ...sendDeps, requestId: request.id }, account, request.body, mode));
      if (result === REPLAYED) return reply;
      if (!result.ok) return sendRejection(reply, result.rejection);
      request.msgids = msgidsOf(result.value);
      return reply.code(200).send(result.value);
    });
  }
}

/** The msgids of a send's 200 body (email `to`, SMS `messages`, WhatsApp `msgid`), for the request's log line. */
function msgidsOf(answer: unknown): readonly string[] {
  const body = answer as { readonly to?: readonly { msgid?: unknown }[]; readonly messages?: readonly { msgid?: unknown }[]; readonly msgid?: unknown };
  const listed = [...(body.to ?? []), ...(body.messages ?? []), body].map((entry) => entry.msgid);
  return listed.filter((msgid): msgid is string => typeof msgid === 'string');
}
