import { simpleParser, type AddressObject, type Attachment, type HeaderValue, type ParsedMail, type StructuredHeader } from 'mailparser';
import { parseFeedbackReport } from '../domain/arf.ts';
import { parseDeliveryStatus, type FieldGroup } from '../domain/dsn.ts';
import type { InboundReading, ReturnedMessage } from '../app/record-inbound-report.ts';

// Reads what arrived at the bounce domain with mailparser: a multipart/report whose
// report-type says delivery-status (RFC 3464) or feedback-report (RFC 5965), its
// machine-readable part, and the headers of the returned original message. The
// domain (dsn.ts, arf.ts) gives the fields their meaning; nothing here throws.

// keepDeliveryStatus and ignoreEmbedded make mailparser hand the report part and the
// returned message over as attachments, whole, instead of folding them into the text.
const PARSER_OPTIONS = {
  keepDeliveryStatus: true, ignoreEmbedded: true, skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, checksumAlgo: false,
} as const;

const DELIVERY_STATUS_TYPES = ['message/delivery-status', 'message/global-delivery-status'];
const FEEDBACK_TYPES = ['message/feedback-report'];
const RETURNED_TYPES = ['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers'];

/** A damaged Content-Type can reach us as something other than a string. */
const typeOf = (part: Attachment): string => String(part.contentType as unknown).toLowerCase();

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Never rejects: whatever cannot be read comes back with the reason in `error`. */
export async function readInboundReport(raw: Buffer): Promise<InboundReading> {
  let mail: ParsedMail;
  let returned: ReturnedMessage | null;
  try {
    mail = await simpleParser(raw, PARSER_OPTIONS);
    returned = await readReturned(mail.attachments);
  } catch (error) {
    return { kind: 'unknown', error: `not a readable message: ${reason(error)}`, returned: null };
  }
  const contentType = structured(mail.headers.get('content-type'));
  if (String(contentType?.value).toLowerCase() !== 'multipart/report') {
    return { kind: 'unknown', error: `not a multipart/report (Content-Type ${contentType?.value ?? 'missing'})`, returned };
  }
  const reportTypeParam: unknown = contentType?.params['report-type'];
  const reportType = typeof reportTypeParam === 'string' ? reportTypeParam.toLowerCase() : undefined;
  try {
    return await readReport(mail, reportType, returned);
  } catch (error) {
    // A part mailparser refuses (a header block over its limit, say) is the report's fault, not the listener's.
    return { kind: reportType === 'delivery-status' ? 'dsn' : reportType === 'feedback-report' ? 'arf' : 'unknown', error: `unreadable report: ${reason(error)}`, returned };
  }
}

async function readReport(mail: ParsedMail, reportType: string | undefined, returned: ReturnedMessage | null): Promise<InboundReading> {
  if (reportType === 'delivery-status') {
    const part = mail.attachments.find((a) => DELIVERY_STATUS_TYPES.includes(typeOf(a)));
    if (!part) return { kind: 'dsn', error: 'no message/delivery-status part', returned };
    const parsed = parseDeliveryStatus(await fieldGroups(part.content));
    return parsed.ok ? { kind: 'dsn', report: parsed.value, returned } : { kind: 'dsn', error: parsed.error, returned };
  }
  if (reportType === 'feedback-report') {
    const part = mail.attachments.find((a) => FEEDBACK_TYPES.includes(typeOf(a)));
    if (!part) return { kind: 'arf', error: 'no message/feedback-report part', returned };
    const parsed = parseFeedbackReport((await fieldGroups(part.content))[0]);
    return parsed.ok ? { kind: 'arf', report: parsed.value, returned } : { kind: 'arf', error: parsed.error, returned };
  }
  return { kind: 'unknown', error: `report-type ${reportType ?? 'missing'} is neither delivery-status nor feedback-report`, returned };
}

function structured(value: HeaderValue | undefined): StructuredHeader | undefined {
  return typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) && 'params' in value && typeof value.value === 'string'
    ? (value as StructuredHeader)
    : undefined;
}

/**
 * A report body is groups of header-style fields separated by blank lines (RFC 3464
 * §2.1, RFC 5965 §3.1). Each group goes through mailparser's header parser, which
 * unfolds continuation lines and decodes encoded words.
 */
async function fieldGroups(content: Buffer): Promise<FieldGroup[]> {
  const blocks = content.toString('utf8').split(/\r?\n[ \t]*\r?\n/).filter((block) => block.trim() !== '');
  const groups: FieldGroup[] = [];
  for (const block of blocks) {
    const parsed = await simpleParser(`${block.replace(/^\s*\r?\n/, '')}\r\n\r\n`, PARSER_OPTIONS);
    const group = new Map<string, string | readonly string[]>();
    for (const [name, value] of parsed.headers) {
      if (typeof value === 'string') group.set(name, value);
      else if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) group.set(name, value);
    }
    if (group.size > 0) groups.push(group);
  }
  return groups;
}

/** The first returned original (or its headers) that parses; its Message-ID and Return-Path. */
async function readReturned(attachments: readonly Attachment[]): Promise<ReturnedMessage | null> {
  const part = attachments.find((a) => RETURNED_TYPES.includes(typeOf(a)));
  if (!part) return null;
  try {
    const original = await simpleParser(part.content, PARSER_OPTIONS);
    const returnPath = original.headers.get('return-path') as AddressObject | AddressObject[] | undefined;
    const address = (Array.isArray(returnPath) ? returnPath[0] : returnPath)?.value[0]?.address ?? null;
    return { messageId: original.messageId ?? null, returnPath: address };
  } catch {
    return null;
  }
}
