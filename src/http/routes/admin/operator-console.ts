import type { FastifyInstance } from 'fastify';
import { listAccounts, type AccountSummaryRecord } from '../../../app/account-list.ts';
import { serviceHealth } from '../../../app/service-health.ts';
import { topUpAccount } from '../../../app/top-up-account.ts';
import { formatMoney } from '../../../domain/money.ts';
import type { LedgerEntry } from '../../../app/ledger-page.ts';
import { ErrorBody } from '../../schemas/errors.ts';
import { AccountList, AccountListQuery, AdminLedgerEntry, TopUpRequest, type AccountSummary } from '../../schemas/operator-accounts.ts';
import { HealthView } from '../../schemas/service-health.ts';
import { sendRejection } from '../../wire-errors.ts';
import { deliveryHeldView } from '../health.ts';
import type { RouteDeps } from '../../route-deps.ts';

// What the operator console adds to the admin API (issue 12; shapes in
// schemas/operator-accounts.ts, schemas/service-health.ts): the account list and search, top-ups with a reason, and the
// service's health. Behind the
// admin hook of admin-routes.ts.

const tags = ['admin'];
const security = [{ adminToken: [] }];
const unauthorized = { 401: { description: 'Admin token missing or invalid', ...ErrorBody } } as const;
const iso = (ms: number): string => new Date(ms).toISOString();

export const adminLedgerEntry = (e: LedgerEntry): AdminLedgerEntry => ({
  id: e.id, at: iso(e.at), messagesDelta: e.messagesDelta, balanceDelta: formatMoney(e.balanceDelta), reason: e.reason, sendId: e.sendId, note: e.note ?? null,
});

const summaryOf = ({ account, users }: AccountSummaryRecord): AccountSummary => ({
  id: account.id, name: account.name, active: account.active, messagesLeft: account.messagesLeft, balance: formatMoney(account.balance),
  services: { email: account.services.email, sms: account.services.sms, whatsapp: account.services.whatsapp }, users, createdAt: iso(account.createdAt),
});

export function operatorConsoleRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get('/admin/v1/accounts', {
    schema: {
      summary: 'Every account, newest first: found by part of the name (without regard to case) or the exact id, a page at a time', tags, security,
      querystring: AccountListQuery,
      response: { 200: AccountList, 400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...ErrorBody }, ...unauthorized },
    },
  }, async (request, reply) => {
    const page = await listAccounts(deps.app, request.query);
    const body: AccountList | undefined = page.ok ? { accounts: page.value.accounts.map(summaryOf), next_cursor: page.value.nextCursor } : undefined;
    return page.ok ? body : sendRejection(reply, page.rejection);
  });

  app.post<{ Params: { id: string } }>('/admin/v1/accounts/:id/top-ups', {
    schema: {
      summary: 'Add (or, negative, remove) messages and money with a reason, written to the ledger the account sees', tags, security,
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Account id' } } },
      body: TopUpRequest,
      response: {
        201: AdminLedgerEntry, 400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...ErrorBody },
        ...unauthorized, 404: { description: 'No such account', ...ErrorBody },
      },
    },
  }, async (request, reply) => {
    const entry = await topUpAccount(deps.app, request.params.id, request.body);
    return entry.ok ? reply.code(201).send(adminLedgerEntry(entry.value)) : sendRejection(reply, entry.rejection);
  });

  app.get('/admin/v1/health', {
    schema: {
      summary: 'The processes seen in the last hour, messages waiting per channel and the oldest one\'s age, the webhook backlog, failures in the last hour',
      tags, security, response: { 200: HealthView, ...unauthorized },
    },
  }, async (): Promise<HealthView> => {
    const health = await serviceHealth(deps.app);
    return {
      processes: health.processes.map((p) => ({ role: p.role as HealthView['processes'][number]['role'], pid: p.pid, host: p.host, started_at: iso(p.startedAt), last_seen_at: iso(p.lastSeenAt) })),
      queues: health.queues.map((q) => ({ channel: q.channel, queued: q.queued, oldest_age_seconds: q.oldestAgeSeconds })),
      webhook_backlog: health.webhookBacklog,
      failures_last_hour: health.failuresLastHour,
      delivery_held: health.deliveryHold === undefined ? null : deliveryHeldView(health.deliveryHold),
    };
  });
}
