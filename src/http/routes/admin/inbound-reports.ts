import type { FastifyInstance } from 'fastify';
import { InboundReportListQuery, listInboundReportsPage, viewInboundReport } from '../../../app/inbound-reports.ts';
import { sendResult } from '../../wire-errors.ts';
import type { RouteDeps } from '../../route-deps.ts';

// GET /admin/v1/inbound-reports[/:id]: what the inbound SMTP listener took (DSNs, ARF
// reports, anything else), so an operator can see why a report changed nothing.
// Registered inside adminRoutes, behind its admin-token hook.

const tags = ['admin'];
const security = [{ adminToken: [] }];
const applicationError = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } as const;
const fieldError = { type: 'object', required: ['message'], properties: { message: { type: 'string' }, detail: { type: 'string' } } } as const;

const summary = {
  id: { type: 'string', format: 'uuid' },
  receivedAt: { type: 'string', format: 'date-time' },
  kind: { type: 'string', enum: ['dsn', 'arf', 'unknown'], description: 'dsn: RFC 3464 delivery status; arf: RFC 5965 feedback report' },
  mailFrom: { type: ['string', 'null'], description: 'Envelope sender; null for the null sender <> of DSNs' },
  rcptTo: { type: 'string', description: 'The bounce-domain address it was sent to' },
  messageId: { type: ['string', 'null'], description: 'The msgid it was matched to' },
  error: { type: ['string', 'null'], description: 'Why it could not be read, matched or applied' },
} as const;
const required = ['id', 'receivedAt', 'kind', 'mailFrom', 'rcptTo', 'messageId', 'error'];

export function inboundReportRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get<{ Querystring: InboundReportListQuery }>('/admin/v1/inbound-reports', {
    schema: {
      summary: 'Reports the inbound SMTP listener took, newest first', tags, security,
      querystring: InboundReportListQuery,
      response: {
        200: {
          type: 'object', required: ['reports', 'nextCursor'],
          properties: { reports: { type: 'array', items: { type: 'object', required, properties: summary } }, nextCursor: { type: ['string', 'null'] } },
        },
        400: fieldError,
        401: { description: 'Admin token missing or invalid', ...applicationError },
      },
    },
  }, async (request, reply) => sendResult(reply, await listInboundReportsPage(deps.app, request.query), 200));

  app.get<{ Params: { id: string } }>('/admin/v1/inbound-reports/:id', {
    schema: {
      summary: 'One inbound report: the raw message, what was understood of it, and the error if any', tags, security,
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      response: {
        200: {
          type: 'object', required: [...required, 'parsed', 'raw'],
          properties: {
            ...summary,
            parsed: { description: 'The report fields (per-recipient Action, Status, Diagnostic-Code; or the feedback fields), the returned message\'s ids, how it was matched and its effect' },
            raw: { type: 'string', description: 'The message as received (RFC 5322)' },
          },
        },
        401: { description: 'Admin token missing or invalid', ...applicationError },
        404: { description: 'No such report', ...applicationError },
      },
    },
  }, async (request, reply) => sendResult(reply, await viewInboundReport(deps.app, request.params.id), 200));
}
