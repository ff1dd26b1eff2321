import type { MessageStatus } from '../domain/message-status.ts';
import type { Executor } from './database.ts';

// Every message the inbound listener took (DSNs, ARF reports, anything else sent to
// the bounce domain), kept whole for the operator, with what was understood of it.

export type InboundReportKind = 'dsn' | 'arf' | 'unknown';

export interface InboundReport {
  readonly id: string;
  readonly receivedAt: number;
  readonly kind: InboundReportKind;
  /** The envelope sender; null for the null sender `<>` that DSNs use. */
  readonly mailFrom: string | null;
  readonly rcptTo: string;
  /** The message the report was matched to, if one was. */
  readonly messageId: string | null;
  readonly raw: string;
  /** What was understood, as stored JSON. */
  readonly parsed: unknown;
  /** Why it could not be used, or not fully. */
  readonly error: string | null;
}

export type InboundReportSummary = Omit<InboundReport, 'raw' | 'parsed'>;

export async function insertInboundReport(db: Executor, report: InboundReport): Promise<void> {
  await db
    .insertInto('inbound_reports')
    .values({
      id: report.id, received_at: report.receivedAt, kind: report.kind, mail_from: report.mailFrom, rcpt_to: report.rcptTo,
      message_id: report.messageId, raw: report.raw, parsed: report.parsed === null ? null : JSON.stringify(report.parsed), error: report.error,
    })
    .execute();
}

/** Newest first; `before` is the last id of the previous page (ids are UUIDv7, so time-ordered). */
export async function listInboundReports(db: Executor, page: { before?: string; limit: number }): Promise<InboundReportSummary[]> {
  const rows = await db
    .selectFrom('inbound_reports')
    .select(['id', 'received_at', 'kind', 'mail_from', 'rcpt_to', 'message_id', 'error'])
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before ?? ''))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map((r) => ({
    id: r.id, receivedAt: Number(r.received_at), kind: r.kind as InboundReportKind, mailFrom: r.mail_from, rcptTo: r.rcpt_to,
    messageId: r.message_id, error: r.error,
  }));
}

export async function findInboundReport(db: Executor, id: string): Promise<InboundReport | undefined> {
  const r = await db.selectFrom('inbound_reports').selectAll().where('id', '=', id).executeTakeFirst();
  return r && {
    id: r.id, receivedAt: Number(r.received_at), kind: r.kind as InboundReportKind, mailFrom: r.mail_from, rcptTo: r.rcpt_to,
    messageId: r.message_id, raw: r.raw, parsed: r.parsed === null ? null : (JSON.parse(r.parsed) as unknown), error: r.error,
  };
}

/** The email message a report names, whichever account it belongs to: reports arrive for the installation. */
export interface ReportedMessage {
  readonly id: string;
  readonly accountId: string;
  readonly recipient: string;
  readonly status: MessageStatus;
  /** When it was accepted: an untagged VERP address is believed only for messages from before tags (app/verp-check.ts). */
  readonly createdAt: number;
}

/**
 * Reads the message after taking its row lock (a no-op UPDATE; SQLite's write
 * transaction already serialises), so two reports for one message arriving together
 * on PostgreSQL are applied one after the other and the second sees the first's bounce.
 */
export async function findReportedMessage(db: Executor, msgid: string): Promise<ReportedMessage | undefined> {
  await db.updateTable('messages').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('id', '=', msgid).where('channel', '=', 'email').execute();
  const row = await db
    .selectFrom('messages')
    .select(['id', 'account_id', 'recipient', 'status', 'created_at'])
    .where('id', '=', msgid)
    .where('channel', '=', 'email')
    .executeTakeFirst();
  return row && { id: row.id, accountId: row.account_id, recipient: row.recipient, status: row.status as MessageStatus, createdAt: Number(row.created_at) };
}

/** Whether the message already has an event of this type (one complaint per message). */
export async function hasMessageEvent(db: Executor, messageId: string, type: string): Promise<boolean> {
  const row = await db.selectFrom('message_events').select('id').where('message_id', '=', messageId).where('type', '=', type).limit(1).executeTakeFirst();
  return row !== undefined;
}
