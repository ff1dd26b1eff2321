import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { MAX_BATCH_CHARACTERS, MAX_BATCH_ITEMS, MAX_BATCH_RECIPIENTS, sendEmailBatch, sendSmsBatch, type BatchOptions } from '../../app/send-batch.ts';
import type { AppDeps } from '../../app/deps.ts';
import type { Account } from '../../domain/account.ts';
import type { KeyMode } from '../../domain/key-mode.ts';
import type { Result } from '../../domain/result.ts';
import { idempotencyDocs, REPLAYED, sendWithIdempotencyKey } from '../plugins/idempotency.ts';
import { callerOf, sendingMode } from '../route-access.ts';
import { itemError, sendRejection } from '../wire-errors.ts';
import { applicationError, commonErrors, validationError } from '../schemas/errors.ts';
import { emailRequest, emailResponse, smsRequest, smsResponse } from '../schemas/sends.ts';
import type { RouteDeps } from '../route-deps.ts';

type BatchUseCase = (deps: AppDeps, account: Account, body: unknown, mode: KeyMode, options: BatchOptions) => Promise<Result<{ readonly data: readonly unknown[] }>>;

// The batch sends (README "Batch sends"): an array of the single send's bodies, answered
// item by item. Same scope, test-key rule and rate limit (one request, counted once) as the
// single send; the body is bounded by HERALD_BODY_LIMIT, the items by MAX_BATCH_ITEMS.

const BatchQuery = Type.Object({
  atomic: Type.Optional(Type.Boolean({ description: 'true: any item refused refuses the whole batch (its error body with `index`), nothing sent or billed' })),
});
type BatchQuery = Static<typeof BatchQuery>;

const itemErrorBody = {
  type: 'object', required: ['status', 'message'],
  description: 'The item\'s refusal: the single send\'s error body with its HTTP status',
  properties: { status: { type: 'integer' }, ...validationError.properties, detail: { type: 'string' } },
} as const;

const BATCHES = [
  { url: '/v1/email/batch', scope: 'email', useCase: sendEmailBatch, item: emailRequest, ok: emailResponse, what: 'emails, each a POST /v1/email body' },
  { url: '/v1/sms/batch', scope: 'sms', useCase: sendSmsBatch, item: smsRequest, ok: smsResponse, what: 'SMS sends, each a POST /v1/sms/send body' },
] as const satisfies readonly { url: string; scope: string; useCase: BatchUseCase; item: object; ok: object; what: string }[];

export function sendBatchRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  for (const batch of BATCHES) {
    app.post<{ Querystring: BatchQuery }>(batch.url, {
      schema: {
        summary: `Send up to ${MAX_BATCH_ITEMS} ${batch.what}, answered item by item`,
        description: `Each item is checked and billed as its single send; the answer lists, in order, each item's 200 body or its error body with \`status\`. `
          + `At most ${MAX_BATCH_ITEMS} items, ${MAX_BATCH_RECIPIENTS} recipients and ${MAX_BATCH_CHARACTERS} characters of content in all (400 with a \`detail\`); `
          + 'the body is bounded by HERALD_BODY_LIMIT (413). One request for the rate limit; one Idempotency-Key covers the batch.',
        tags: ['send'],
        querystring: BatchQuery,
        body: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ITEMS, items: batch.item },
        headers: idempotencyDocs.headers,
        response: {
          200: {
            type: 'object', required: ['data'],
            properties: { data: { type: 'array', items: { anyOf: [batch.ok, itemErrorBody] } } },
            headers: idempotencyDocs.replayHeaders,
          },
          ...commonErrors,
          ...idempotencyDocs.responses,
          401: { description: 'Account or key not allowed to do this; with `?atomic=true`, an item\'s 401 with its `index`', ...applicationError },
        },
      },
      // Not in herald_accept_duration_seconds (the single sends' latency): a batch's time grows with its items.
      config: { access: { scope: batch.scope, access: 'write' } },
    }, async (request, reply) => {
      const account = callerOf(request).account;
      const mode = sendingMode(request);
      const options: BatchOptions = { atomic: request.query.atomic === true, itemError };
      const result = await sendWithIdempotencyKey(deps, request, reply, (sendDeps) => (batch.useCase as BatchUseCase)({ ...sendDeps, requestId: request.id }, account, request.body, mode, options));
      if (result === REPLAYED) return reply;
      if (!result.ok) return sendRejection(reply, result.rejection);
      request.msgids = msgidsOf(result.value.data);
      // Written as stored with an Idempotency-Key, so a replay's bytes are the same.
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(result.value));
    });
  }
}

/** A batch's log line names at most as many msgids as the largest single email (2,000 recipients by default); the rest share its reqId. */
const MAX_LOGGED_MSGIDS = 2000;

/** The msgids of a batch's accepted items, for the request's log line. */
function msgidsOf(items: readonly unknown[]): readonly string[] {
  const msgids = items.flatMap((item) => {
    const body = item as { readonly to?: readonly { msgid?: unknown }[]; readonly messages?: readonly { msgid?: unknown }[] };
    return [...(body.to ?? []), ...(body.messages ?? [])].map((entry) => entry.msgid).filter((msgid): msgid is string => typeof msgid === 'string');
  });
  return msgids.slice(0, MAX_LOGGED_MSGIDS);
}
