import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../store/database.ts';
import { sendRejection } from '../wire-errors.ts';

/** Why this process should get no traffic now (a stalled delivery loop, say); undefined when nothing stands in the way. */
export type ReadinessCheck = () => string | undefined;

/**
 * `/healthz`: the process answers. `/readyz`: the database answers and every readiness
 * check passes; otherwise 503 with the reason in `detail`. Neither writes a log line
 * (plugins/request-log.ts), since orchestrators probe every few seconds.
 */
export function healthRoutes(app: FastifyInstance, deps: { readonly db: Db; readonly readiness?: ReadinessCheck }): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
    } catch (error) {
      request.log.warn({ err: error }, 'database not reachable');
      return sendRejection(reply, { code: 'storeUnavailable' });
    }
    const notReady = deps.readiness?.();
    if (notReady !== undefined) return sendRejection(reply, { code: 'storeUnavailable', detail: notReady });
    return { status: 'ready' };
  });
}
