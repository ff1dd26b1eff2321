import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { readDeliveryHold, type DeliveryHold } from '../../app/delivery-hold.ts';
import type { StoreOutage } from '../../app/store-outage.ts';
import type { RouteDeps } from '../route-deps.ts';
import { sendRejection } from '../wire-errors.ts';

/**
 * `/healthz`: the process answers. `/readyz`: the database answers and every readiness
 * check passes; otherwise 503 with the reason in `detail`. Neither writes a log line
 * (plugins/request-log.ts), since orchestrators probe every few seconds. A process is
 * ready while delivery is held (app/delivery-hold.ts): it accepts, and says it holds.
 */
export function healthRoutes(app: FastifyInstance, deps: RouteDeps, outage: StoreOutage): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.app.db);
    } catch (error) {
      // An outage is logged once however often the orchestrator probes (app/store-outage.ts).
      if (!outage.noticed(error, request.log)) request.log.warn({ err: error }, 'database not reachable');
      return sendRejection(reply, { code: 'storeUnavailable' });
    }
    outage.answered(request.log);
    const notReady = deps.readiness?.();
    if (notReady !== undefined) return sendRejection(reply, { code: 'storeUnavailable', detail: notReady });
    const hold = await readDeliveryHold(deps.app.db);
    if (hold !== undefined) return { status: 'ready', delivery_held: deliveryHeldView(hold) };
    return { status: 'ready' };
  });
}

/** The hold as /readyz and GET /admin/v1/health show it. */
export function deliveryHeldView(hold: DeliveryHold): { since: string; reason: string; release: string } {
  return { since: new Date(hold.since).toISOString(), reason: hold.reason, release: 'herald outbox release' };
}
