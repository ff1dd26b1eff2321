import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// One line per answered request (Fastify's own two are turned off in app.ts): method,
// URL, status, time and, once authentication found it, the account. Health probes
// (/healthz, /readyz), which orchestrators send every few seconds, write nothing.

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
      },
      'request completed',
    );
  });
}
