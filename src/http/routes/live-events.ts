import type { FastifyInstance } from 'fastify';
import type { LiveCloseReason, LiveEvent, LiveSubscriber } from '../../app/live-feed.ts';
import type { RouteAccess } from '../../domain/access.ts';
import { ErrorBody } from '../schemas/errors.ts';
import { signedInOf } from '../route-access.ts';
import { sendRejection } from '../wire-errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// GET /v1/events/stream: the signed-in user's account's events as server-sent events
// (docs/live-updates.md), for the web application's open pages. The process's live
// feed (app/live-feed.ts) writes to it; this file only speaks the protocol. What a slow
// reader has not taken is bounded: past MAX_UNSENT_BYTES the stream is closed, and the
// browser's EventSource reconnects and its pages read afresh.

/** Bytes written but not yet taken by the reader's socket before the stream is closed. */
export const MAX_UNSENT_BYTES = 64 * 1024;
/** What EventSource waits before reconnecting (ms), sent first. */
const RETRY_MS = 3000;

const config = { access: { scope: 'account', access: 'read' } satisfies RouteAccess, sessionOnly: true };

export function liveEventRoutes(app: FastifyInstance, httpDeps: RouteDeps): void {
  app.get('/v1/events/stream', {
    config,
    schema: {
      summary: 'The account\'s events as they happen (server-sent events): messages, their status changes, inbound messages, webhook deliveries, imports, campaigns',
      description: 'Each event is one `data:` line of JSON: `type` (`message.created`, `message.updated`, `inbound.received`, `webhook.queued`, `webhook.attempted`, '
        + '`import.updated`, `campaign.updated`), `at`, the ids and a status; never a message\'s content. A comment line comes at least every 15 s. '
        + 'An `event: session-ended` comes before the stream closes when the session ends. Bounded per user and per process (429).',
      tags: ['session'],
      response: {
        200: { description: 'The stream (text/event-stream)', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        429: { description: '`Too many live update streams open, close one or try again later`', ...ErrorBody },
      },
    },
  }, async (request, reply) => {
    const { account, principal } = signedInOf(request);
    const feed = httpDeps.liveFeed;
    if (feed === undefined) return sendRejection(reply, { code: 'liveStreamsExceeded' });
    const raw = reply.raw;
    let ended = false;
    const write = (text: string): boolean => {
      if (ended) return false;
      if (raw.writableLength > MAX_UNSENT_BYTES) return false;
      raw.write(text);
      return true;
    };
    const subscriber: LiveSubscriber = {
      accountId: account.id,
      userId: principal.user.id,
      sessionId: principal.session.id,
      send: (event: LiveEvent) => write(`data: ${JSON.stringify(event)}\n\n`),
      heartbeat: () => write(':\n\n'),
      close: (reason: LiveCloseReason) => {
        if (ended) return;
        if (reason === 'session-ended') write('event: session-ended\ndata: {}\n\n');
        ended = true;
        remove();
        if (reason === 'too-slow') raw.destroy();
        else raw.end();
      },
    };
    const opened = feed.open(subscriber);
    if (!opened.ok) return sendRejection(reply, { code: 'liveStreamsExceeded' });
    const remove = opened.remove;
    // The reader went away (a closed tab, a dropped connection) or the stream was ended here.
    raw.on('close', () => {
      ended = true;
      remove();
    });
    reply.hijack();
    // The headers the hooks set (x-request-id, nosniff) go out with the stream's own.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies such as nginx would otherwise hold the events back.
      'x-accel-buffering': 'no',
    });
    raw.write(`retry: ${RETRY_MS}\n\n`);
    return reply;
  });
}
