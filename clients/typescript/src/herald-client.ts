// @herald/client: herald's sends, message log and webhook settings over Node's fetch,
// typed by the schema.d.ts that openapi-typescript made from herald's OpenAPI document.
// Every send carries an Idempotency-Key (a random UUID unless given), so a send whose
// answer was lost is retried without a second message or a second charge.
import { randomUUID } from 'node:crypto';
import { HeraldError } from './herald-error.ts';
import type {
  BatchItemError, EmailAnswer, EmailBatchAnswer, EmailBatchItem, EmailRequest, Message, MessagePage, MessageQuery, MessageSummary, Query,
  Rescheduled, Schedulable, ScheduleCancelled, SmsAnswer, SmsBatchAnswer, SmsBatchItem, SmsRequest, WebhookEndpoint, WebhookEndpointList,
  WebhookEndpointRequest, WebhookEndpointUpdate, WebhookSettings, WebhookSettingsRequest, WebhookTestDelivery, WebhookTestEventType,
  WhatsappMessageAnswer, WhatsappMessageRequest, WhatsappTemplateAnswer, WhatsappTemplateRequest,
} from './operation-types.ts';

export { HeraldError, type HeraldErrorKind } from './herald-error.ts';
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookHeaders } from './webhook-verification.ts';
export type * from './operation-types.ts';
export type { components, operations, paths, webhooks } from './schema.d.ts';

export interface HeraldClientOptions {
  /** Where herald answers, e.g. `http://localhost:8080`. */
  readonly baseUrl: string;
  /** An API key with the scopes of the calls made. */
  readonly apiKey: string;
  /**
   * Attempts after the first when a call that is safe to repeat (a send, which carries
   * its Idempotency-Key; a read; a PUT or PATCH) got no answer, a 503, a 429, or for a send a 409
   * (its key still being served). Default 2.
   */
  readonly retries?: number;
  /** Time allowed for one attempt; default 30,000 ms. */
  readonly timeoutMs?: number;
  /** Longest wait before a retry that herald's Retry-After may ask for; a longer one is not waited for. Default 10,000 ms. */
  readonly maxRetryWaitMs?: number;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
}

export interface SendOptions {
  /** The send's Idempotency-Key: give the same one when sending the same thing again. Default: a new random UUID. */
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

export interface BatchOptions extends SendOptions {
  /** true: any refused item refuses the whole batch (a HeraldError with the item's `index`), nothing sent or billed. */
  readonly atomic?: boolean;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
}

interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal | undefined;
}

const RETRIED_STATUSES = new Set([429, 503]);
const FIRST_BACKOFF_MS = 200;

/** Waits `ms`, or until the caller's signal aborts (then rejects with its reason). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): void => { clearTimeout(timer); reject(signal?.reason); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', aborted); resolve(); }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

export class HeraldClient {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #retries: number;
  readonly #timeoutMs: number;
  readonly #maxRetryWaitMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: HeraldClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#retries = options.retries ?? 2;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetryWaitMs = options.maxRetryWaitMs ?? 10_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** POST /v1/email: one msgid per recipient. */
  sendEmail(request: Schedulable<EmailRequest>, options: SendOptions = {}): Promise<EmailAnswer> {
    return this.#send('/v1/email', request, options);
  }

  /** POST /v1/sms/send: one msgid per number, and the messages left. */
  sendSms(request: Schedulable<SmsRequest>, options: SendOptions = {}): Promise<SmsAnswer> {
    return this.#send('/v1/sms/send', request, options);
  }

  /** POST /v1/whatsapp/sendTemplateMessage: an approved template with its parameters. */
  sendWhatsappTemplate(request: Schedulable<WhatsappTemplateRequest>, options: SendOptions = {}): Promise<WhatsappTemplateAnswer> {
    return this.#send('/v1/whatsapp/sendTemplateMessage', request, options);
  }

  /** POST /v1/whatsapp/sendMessage: free text, within 24 hours of the destination's last message. */
  sendWhatsappMessage(request: WhatsappMessageRequest, options: SendOptions = {}): Promise<WhatsappMessageAnswer> {
    return this.#send('/v1/whatsapp/sendMessage', request, options);
  }

  /**
   * POST /v1/email/batch: 1 to 500 email bodies under one Idempotency-Key; `data` answers each
   * in order, its single send's body or its refusal (see isBatchItemError).
   */
  sendEmailBatch(items: readonly Schedulable<EmailBatchItem>[], options: BatchOptions = {}): Promise<EmailBatchAnswer> {
    return this.#send('/v1/email/batch', items, options, options.atomic === true ? { atomic: true } : undefined);
  }

  /** POST /v1/sms/batch: 1 to 500 SMS bodies under one Idempotency-Key, answered item by item as sendEmailBatch. */
  sendSmsBatch(items: readonly Schedulable<SmsBatchItem>[], options: BatchOptions = {}): Promise<SmsBatchAnswer> {
    return this.#send('/v1/sms/batch', items, options, options.atomic === true ? { atomic: true } : undefined);
  }

  /** DELETE /v1/messages/{msgid}/schedule: a scheduled message never sent, its cost given back. */
  cancelScheduled(msgid: string, options: CallOptions = {}): Promise<ScheduleCancelled> {
    return this.#call({ method: 'DELETE', path: `/v1/messages/${encodeURIComponent(msgid)}/schedule`, signal: options.signal });
  }

  /** PATCH /v1/messages/{msgid}/schedule: a scheduled message's new time (in the future, at most 72 hours ahead). */
  reschedule(msgid: string, sendAt: Date | string, options: CallOptions = {}): Promise<Rescheduled> {
    const body = { send_at: typeof sendAt === 'string' ? sendAt : sendAt.toISOString() };
    return this.#call({ method: 'PATCH', path: `/v1/messages/${encodeURIComponent(msgid)}/schedule`, body, signal: options.signal });
  }

  /** GET /v1/messages/{msgid}: the message, its status and its events. */
  getMessage(msgid: string, options: CallOptions = {}): Promise<Message> {
    return this.#call({ method: 'GET', path: `/v1/messages/${encodeURIComponent(msgid)}`, signal: options.signal });
  }

  /** GET /v1/messages: one page, newest first; pass its `next_cursor` as `cursor` for the next. */
  listMessages(query: Query<'listMessages'> = {}, options: CallOptions = {}): Promise<MessagePage> {
    return this.#call({ method: 'GET', path: '/v1/messages', query, signal: options.signal });
  }

  /** Every message that matches, newest first, a page (`limit`, default 50) at a time, following the cursors. */
  async *messages(query: MessageQuery = {}, options: CallOptions = {}): AsyncGenerator<MessageSummary, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listMessages(cursor === undefined ? query : { ...query, cursor }, options);
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** GET /v1/webhooks: the URL, the secret to verify posts with, the event filter. */
  getWebhookSettings(options: CallOptions = {}): Promise<WebhookSettings> {
    return this.#call({ method: 'GET', path: '/v1/webhooks', signal: options.signal });
  }

  /** PUT /v1/webhooks: sets the URL (null: none) and the filter; answers the settings with the secret. */
  setWebhookSettings(settings: WebhookSettingsRequest, options: CallOptions = {}): Promise<WebhookSettings> {
    return this.#call({ method: 'PUT', path: '/v1/webhooks', body: settings, signal: options.signal });
  }

  /** GET /v1/webhooks/endpoints: `{data}`, the first endpoint (when it has a URL), then the others, oldest first. */
  listWebhookEndpoints(options: CallOptions = {}): Promise<WebhookEndpointList> {
    return this.#call({ method: 'GET', path: '/v1/webhooks/endpoints', signal: options.signal });
  }

  /** POST /v1/webhooks/endpoints: a new endpoint with its own secret (the first one when the account has no URL). */
  createWebhookEndpoint(endpoint: WebhookEndpointRequest, options: CallOptions = {}): Promise<WebhookEndpoint> {
    return this.#call({ method: 'POST', path: '/v1/webhooks/endpoints', body: endpoint, signal: options.signal });
  }

  /** PATCH /v1/webhooks/endpoints/{id}: changes only the fields given (`enabled: false` stops it). */
  updateWebhookEndpoint(id: string, changes: WebhookEndpointUpdate, options: CallOptions = {}): Promise<WebhookEndpoint> {
    return this.#call({ method: 'PATCH', path: `/v1/webhooks/endpoints/${encodeURIComponent(id)}`, body: changes, signal: options.signal });
  }

  /** DELETE /v1/webhooks/endpoints/{id}: the endpoint and its delivery log (the first: its URL cleared). */
  deleteWebhookEndpoint(id: string, options: CallOptions = {}): Promise<void> {
    return this.#call({ method: 'DELETE', path: `/v1/webhooks/endpoints/${encodeURIComponent(id)}`, signal: options.signal });
  }

  /** POST /v1/webhooks/endpoints/{id}/test: a test event of `type` (default `webhook.test`) to this endpoint only; answers its delivery. */
  sendWebhookTestEvent(id: string, type: WebhookTestEventType = 'webhook.test', options: CallOptions = {}): Promise<WebhookTestDelivery> {
    return this.#call({ method: 'POST', path: `/v1/webhooks/endpoints/${encodeURIComponent(id)}/test`, body: { type }, signal: options.signal });
  }

  #send<T>(path: string, body: unknown, options: SendOptions, query?: Call['query']): Promise<T> {
    return this.#call({ method: 'POST', path, query, body, idempotencyKey: options.idempotencyKey ?? randomUUID(), signal: options.signal });
  }

  async #call<T>(call: Call): Promise<T> {
    const url = new URL(`${this.#baseUrl}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    // A POST without a key might have been taken before its answer was lost: only a keyed one is repeated.
    // A DELETE that was taken would be answered 404 or 409 the second time, hiding what it did.
    const repeatable = call.method === 'POST' ? call.idempotencyKey !== undefined : call.method !== 'DELETE';

    for (let attempt = 0; ; attempt++) {
      const last = !repeatable || attempt >= this.#retries;
      const timeout = AbortSignal.timeout(this.#timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await this.#fetch(url, {
          method: call.method, headers, body, signal: call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]),
        });
        text = await response.text();
      } catch (error) {
        if (last || call.signal?.aborted === true) throw error;
        await pause(FIRST_BACKOFF_MS * 2 ** attempt, call.signal);
        continue;
      }
      if (response.ok) return (text === '' ? undefined : JSON.parse(text)) as T;
      const refusal = new HeraldError(response.status, parsed(text), response.headers);
      const retried = RETRIED_STATUSES.has(response.status) || (response.status === 409 && call.idempotencyKey !== undefined);
      const wait = refusal.retryAfterSeconds === undefined ? FIRST_BACKOFF_MS * 2 ** attempt : refusal.retryAfterSeconds * 1000;
      if (last || !retried || wait > this.#maxRetryWaitMs) throw refusal;
      await pause(wait, call.signal);
    }
  }
}

/** Whether a batch item's answer is a refusal (its `status` and error body) rather than its single send's answer. */
export function isBatchItemError<Result extends object>(result: Result): result is Extract<Result, BatchItemError> {
  return 'status' in result && typeof result.status === 'number';
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
