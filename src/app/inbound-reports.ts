import { Type, type Static } from '@sinclair/typebox';
import { ok, reject, type Result } from '../domain/result.ts';
import { findInboundReport, listInboundReports, type InboundReportKind, type InboundReportSummary } from '../store/inbound-reports.ts';
import type { AppDeps } from './deps.ts';

// The operator's view of what the inbound listener took: GET /admin/v1/inbound-reports
// (newest first, a page at a time) and one report whole, raw MIME included.

export const INBOUND_REPORTS_PAGE = 50;
export const INBOUND_REPORTS_PAGE_MAX = 200;

export interface InboundReportSummaryView {
  readonly id: string;
  readonly receivedAt: string;
  readonly kind: InboundReportKind;
  readonly mailFrom: string | null;
  readonly rcptTo: string;
  readonly messageId: string | null;
  readonly error: string | null;
}

export interface InboundReportView extends InboundReportSummaryView {
  readonly parsed: unknown;
  readonly raw: string;
}

const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const UUID = new RegExp(UUID_PATTERN);

/** GET /admin/v1/inbound-reports's query, declared once (checked by the route: http/input-validation.ts). */
export const InboundReportListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ pattern: UUID_PATTERN, errorMessage: 'must be the nextCursor of a previous page', description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({
    minimum: 1, maximum: INBOUND_REPORTS_PAGE_MAX, default: INBOUND_REPORTS_PAGE, errorMessage: `must be a whole number from 1 to ${INBOUND_REPORTS_PAGE_MAX}`,
  })),
});
export type InboundReportListQuery = Static<typeof InboundReportListQuery>;

const summaryView = (r: InboundReportSummary): InboundReportSummaryView => ({
  id: r.id, receivedAt: new Date(r.receivedAt).toISOString(), kind: r.kind, mailFrom: r.mailFrom, rcptTo: r.rcptTo,
  messageId: r.messageId, error: r.error,
});

/** `?cursor=` is the `nextCursor` of the previous page; `?limit=` 1 to 200 (default 50). */
export async function listInboundReportsPage(
  deps: Pick<AppDeps, 'db'>,
  query: InboundReportListQuery,
): Promise<Result<{ reports: InboundReportSummaryView[]; nextCursor: string | null }>> {
  const { cursor, limit = INBOUND_REPORTS_PAGE } = query;
  // One row more than asked tells whether another page follows.
  const rows = await listInboundReports(deps.db, { ...(cursor === undefined ? {} : { before: cursor }), limit: limit + 1 });
  const page = rows.slice(0, limit);
  return ok({ reports: page.map(summaryView), nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null });
}

export async function viewInboundReport(deps: Pick<AppDeps, 'db'>, id: string): Promise<Result<InboundReportView>> {
  const report = UUID.test(id) ? await findInboundReport(deps.db, id) : undefined;
  if (!report) return reject('notFound');
  return ok({ ...summaryView(report), parsed: report.parsed, raw: report.raw });
}
