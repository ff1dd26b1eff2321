import type { FieldGroup, Parsed } from './dsn.ts';
import { typedValue } from './dsn.ts';

// Complaints: RFC 5965 feedback reports (ARF), the message/feedback-report part of a
// multipart/report; report-type=feedback-report that mailbox providers' feedback
// loops send when a user marks a message as spam. Pure: the MIME is read by
// inbound/report-reader.ts.

export interface FeedbackReport {
  /** Lower-cased: abuse, fraud, virus, other, not-spam (RFC 6430), auth-failure (RFC 6591), … */
  readonly feedbackType: string;
  readonly userAgent: string | null;
  readonly version: string | null;
  /** The envelope sender of the reported message: our VERP address when it is ours. */
  readonly originalMailFrom: string | null;
  readonly originalRcptTo: string | null;
  readonly arrivalDate: string | null;
  readonly reportingMta: string | null;
  readonly sourceIp: string | null;
}

/**
 * Feedback types that are a recipient's complaint about the message. `not-spam` (the
 * user took it out of the spam folder) and `auth-failure` (an SPF/DKIM/DMARC report)
 * are not, and neither is `other`, whose meaning is the reporter's own.
 */
export const COMPLAINT_TYPES: readonly string[] = ['abuse', 'fraud', 'virus'];

const first = (group: FieldGroup, name: string): string | null => {
  const value = group.get(name);
  const text = typeof value === 'string' ? value : value?.[0];
  return text === undefined ? null : text.replace(/\s+/g, ' ').trim() || null;
};

/** RFC 5965 §3.1 requires Feedback-Type, User-Agent and Version; only the first is needed to act, so only it is insisted on. */
export function parseFeedbackReport(group: FieldGroup | undefined): Parsed<FeedbackReport> {
  if (group === undefined) return { ok: false, error: 'feedback-report part is empty' };
  const feedbackType = first(group, 'feedback-type')?.toLowerCase() ?? null;
  if (feedbackType === null) return { ok: false, error: 'feedback-report: Feedback-Type missing' };
  return {
    ok: true,
    value: {
      feedbackType,
      userAgent: first(group, 'user-agent'),
      version: first(group, 'version'),
      originalMailFrom: first(group, 'original-mail-from'),
      originalRcptTo: first(group, 'original-rcpt-to'),
      arrivalDate: first(group, 'arrival-date') ?? first(group, 'received-date'),
      reportingMta: typedValue(first(group, 'reporting-mta')),
      sourceIp: first(group, 'source-ip'),
    },
  };
}

export function isComplaint(report: FeedbackReport): boolean {
  return COMPLAINT_TYPES.includes(report.feedbackType);
}

/** The fields an `email.complained` event carries. */
export function complaintDetails(report: FeedbackReport): Readonly<Record<string, unknown>> {
  return {
    feedback_type: report.feedbackType,
    user_agent: report.userAgent,
    arrival_date: report.arrivalDate,
    reporting_mta: report.reportingMta,
    source: 'arf',
  };
}
