import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// One line per answered request (Fastify's own two are turned off in app.ts): method,
// URL, status, time, once authentication found it the account, and for an accepted send
// the msgids it made (the worker's delivery lines carry the same reqId). Health probes
// (/healthz, /readyz), which orchestrators send every few seconds, write nothing.

declare module 'fastify' {
  interface FastifyRequest {
    /** The messages an accepted send request made (http/routes/send.ts), for its log line. */
    msgids?: readonly string[];
  }
}

const PROBES = new Set(['/healthz', '/readyz']);

export function requestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    if (PROBES.has(request.routeOptions.url ?? '')) return;
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
        remoteAddress: request.ip,
        ...(request.caller === undefined ? {} : { account: request.caller.account.id }),
        ...(request.msgids === undefined ? {} : { msgids: request.msgids }),
      },
      'request completed',
    );
  });
}
