import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Service } from '../../src/service.ts';

// A webhook consumer on loopback, as a customer would write one: a node:http server
// that verifies every post with the `standardwebhooks` package (Webhook.verify: the
// signature over id.timestamp.body, and the timestamp within 5 minutes of Date.now)
// against the secrets it trusts, answers 401 to anything that does not verify, and
// records what it accepted. A test can make it answer an error status, or take it
// down (connections refused) and bring it back on the same port.

export interface ReceivedEvent {
  readonly id: string;
  /** `webhook-timestamp`, seconds. */
  readonly timestamp: number;
  readonly signature: string;
  readonly contentType: string | undefined;
  readonly body: string;
  /** The parsed body as Webhook.verify returned it. */
  readonly payload: { readonly type: string; readonly timestamp: string; readonly data: Readonly<Record<string, unknown>> };
  /** Which of the trusted secrets verified it (each checked on its own). */
  readonly verifiedBy: readonly string[];
  readonly path: string;
}

export interface RejectedPost {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly reason: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks/herald`. */
  readonly url: string;
  readonly port: number;
  /** Verified posts answered 2xx, in arrival order. */
  readonly received: ReceivedEvent[];
  /** Posts that did not verify (answered 401). */
  readonly rejected: RejectedPost[];
  /** Verified posts answered with an error status (answering mode). */
  readonly refused: ReceivedEvent[];
  /** The secrets a post may be signed with; set by the test (e.g. from GET /v1/webhooks). */
  secrets: string[];
  /** Answer verified posts with this status (and these headers, e.g. Retry-After) from now on (200 by default). */
  answerWith(status: number, headers?: Readonly<Record<string, string>>): void;
  /** Stops listening and drops every connection: posts get ECONNREFUSED. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(t: TestContext, options: { secrets?: string[] } = {}): Promise<WebhookReceiver> {
  const received: ReceivedEvent[] = [];
  const rejected: RejectedPost[] = [];
  const refused: ReceivedEvent[] = [];
  let status = 200;
  let answerHeaders: Readonly<Record<string, string>> = {};

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );
      const verifiedBy: string[] = [];
      let payload: unknown;
      let reason = 'no trusted secret';
      for (const secret of receiver.secrets) {
        try {
          payload = new Webhook(secret).verify(body, headers);
          verifiedBy.push(secret);
        } catch (error) {
          reason = error instanceof Error ? error.message : String(error);
        }
      }
      if (verifiedBy.length === 0 || request.method !== 'POST') {
        rejected.push({ headers: request.headers, body, reason });
        response.writeHead(401, { 'content-type': 'text/plain' }).end(reason);
        return;
      }
      const event: ReceivedEvent = {
        id: headers['webhook-id'] ?? '',
        timestamp: Number(headers['webhook-timestamp']),
        signature: headers['webhook-signature'] ?? '',
        contentType: headers['content-type'],
        body,
        payload: payload as ReceivedEvent['payload'],
        verifiedBy,
        path: request.url ?? '',
      };
      if (status >= 200 && status <= 299) received.push(event);
      else refused.push(event);
      response.writeHead(status, { ...answerHeaders, 'content-type': 'text/plain' }).end(status >= 200 && status <= 299 ? 'ok' : 'receiver says no');
    });
  });

  const listen = async (port: number): Promise<number> => {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  const stop = async (): Promise<void> => {
    if (!server.listening) return;
    const closed = once(server, 'close');
    server.close();
    server.closeAllConnections();
    await closed;
  };

  const port = await listen(0);
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks/herald`,
    port,
    received,
    rejected,
    refused,
    secrets: [...(options.secrets ?? [])],
    answerWith(next, headers = {}) {
      status = next;
      answerHeaders = headers;
    },
    down: stop,
    async up() { await listen(port); },
    close: stop,
  };
  t.after(() => receiver.close());
  return receiver;
}

// ---- herald's side, for tests ----

/** Any request to herald's API with the account's key; a body is sent as JSON. */
export function call(service: Service, method: 'GET' | 'PUT' | 'POST', url: string, apiKey: string, body?: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Points the account's webhook at the receiver (PUT /v1/webhooks) and makes the receiver trust its secret. */
export async function subscribe(service: Service, apiKey: string, receiver: WebhookReceiver, events?: readonly string[]): Promise<string> {
  const res = await call(service, 'PUT', '/v1/webhooks', apiKey, { url: receiver.url, ...(events === undefined ? {} : { events }) });
  if (res.statusCode !== 200) throw new Error(`PUT /v1/webhooks answered ${res.statusCode}: ${res.body}`);
  const secret = (res.json() as { secret: string }).secret;
  receiver.secrets = [secret];
  return secret;
}
