import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import { whatsappCredentials } from '../../src/app/whatsapp-credentials.ts';
import type { Outcome, Transport } from '../../src/channels/channel.ts';
import { cloudApiTransport } from '../../src/channels/whatsapp/cloud-api-transport.ts';
import { OutboxWorker, type Transports } from '../../src/queue/outbox/worker.ts';
import type { Service } from '../../src/service.ts';

// An HTTP stand-in for the WhatsApp Cloud API on loopback: records every request
// and answers like Meta — a message id for each send, or the error the test set.
// Plus the other direction: webhooks signed as Meta signs them, posted to herald.

export const API_VERSION = 'v23.0';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  readonly json: unknown;
}

/** What the stand-in answers: Meta's success body, an error, or nothing at all. */
export type StandInAnswer =
  | { readonly kind: 'ok' }
  | { readonly kind: 'error'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'silence' };

export interface CloudApiStandIn {
  /** `http://127.0.0.1:<port>/v23.0`, the transport's baseUrl. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Answers for the next requests, in order; after them, success again. */
  answer(...answers: StandInAnswer[]): void;
  close(): Promise<void>;
}

/** Meta's Graph API error body. */
export function metaErrorBody(code: number, message: string, extra: Record<string, unknown> = {}): unknown {
  return { error: { message, type: 'OAuthException', code, fbtrace_id: 'AbCdEfGh123', ...extra } };
}

export async function startCloudApiStandIn(t: TestContext): Promise<CloudApiStandIn> {
  const requests: RecordedRequest[] = [];
  const queued: StandInAnswer[] = [];
  let sent = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try { json = JSON.parse(text); } catch { json = undefined; }
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, json });

      const answer = queued.shift() ?? { kind: 'ok' };
      if (answer.kind === 'silence') return; // the socket stays open until the client gives up
      const reply = (status: number, body: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (answer.kind === 'error') return reply(answer.status, answer.body);
      sent += 1;
      // Template management (POST /{waba-id}/message_templates): Meta's id, PENDING review.
      if ((request.url ?? '').endsWith('/message_templates')) {
        return reply(200, { id: `10${sent}`, status: 'PENDING', category: (json as { category?: unknown } | undefined)?.category });
      }
      const to = (json as { to?: unknown } | undefined)?.to;
      reply(200, { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.${sent}` }] });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const standIn: CloudApiStandIn = {
    baseUrl: `http://127.0.0.1:${port}/${API_VERSION}`,
    requests,
    answer(...answers) { queued.push(...answers); },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  t.after(() => standIn.close());
  return standIn;
}

// ---- the other direction: Meta's webhooks to herald ----

export function hubSignature(rawBody: string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/** POSTs `body` to /webhooks/whatsapp signed with `appSecret` (or with the given header). */
export function postWebhook(
  service: Service,
  body: unknown,
  options: { appSecret?: string; signature?: string | null } = {},
): Promise<LightMyRequestResponse> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = options.signature === undefined ? hubSignature(raw, options.appSecret ?? '') : options.signature;
  return service.http.inject({
    method: 'POST', url: '/webhooks/whatsapp',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-hub-signature-256': signature }) },
    payload: raw,
  });
}

const change = (phoneNumberId: string, value: Record<string, unknown>): unknown => ({
  object: 'whatsapp_business_account',
  entry: [{
    id: '102290129340398',
    changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId }, ...value } }],
  }],
});

/** A status update for a message herald sent, as Meta posts it. */
export function statusWebhook(
  phoneNumberId: string,
  status: { id: string; status: string; timestamp: number; recipient: string; errors?: unknown[] },
): unknown {
  return change(phoneNumberId, {
    statuses: [{
      id: status.id, status: status.status, timestamp: String(status.timestamp), recipient_id: status.recipient,
      ...(status.errors === undefined ? {} : { errors: status.errors }),
    }],
  });
}

/** A user's text message to the business number, as Meta posts it. */
export function inboundWebhook(phoneNumberId: string, message: { from: string; timestamp: number; text: string }): unknown {
  return change(phoneNumberId, {
    contacts: [{ profile: { name: 'Ana' }, wa_id: message.from }],
    messages: [{ from: message.from, id: `wamid.in.${message.timestamp}`, timestamp: String(message.timestamp), type: 'text', text: { body: message.text } }],
  });
}

// ---- delivery inside the service, through the real transport ----

/**
 * An outbox worker over the service's store whose WhatsApp transport is the Cloud
 * API one, pointed at `baseUrl` and reading the accounts' stored credentials.
 */
export function cloudApiWorker(service: Service, baseUrl: string, clock: () => number): OutboxWorker {
  const whatsapp = cloudApiTransport({ baseUrl, credentials: whatsappCredentials(service.deps), timeoutMs: 5000 });
  const unused: Transport<never> = {
    name: 'unused',
    async send(): Promise<Outcome> { throw new Error('only WhatsApp is delivered in this test'); },
  };
  const transports: Transports = { email: unused, sms: unused, whatsapp };
  return new OutboxWorker(
    { db: service.store.db, clock, newId: uuidv7, random: () => 0.5, capabilities: service.store.capabilities, transports, logger: pino({ level: 'silent' }) },
    { owner: 'test-worker', batchSize: 10, concurrency: 10, leaseMs: 60_000, pollMs: 50 },
  );
}
