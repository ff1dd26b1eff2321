import { Buffer } from 'node:buffer';
import { parseAddress } from './email-address.ts';
import { echoText, isJsonObject, ownField, type JsonObject } from './json-object.ts';
import { DEFAULT_LIMITS, type RequestLimits } from './request-limits.ts';
import { parseSendOptions, type SendOptionsRequest } from './send-options.ts';
import { ok, reject } from './result.ts';
import type { Offending, Result } from './result.ts';
import type { WireCode } from './wire-texts.ts';

export interface NamedAddress {
  readonly email: string;
  readonly name: string;
}
export type AttachmentSource =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'data'; readonly contentType: string; readonly base64: string; readonly size: number };
export interface AttachmentSpec {
  readonly filename: string;
  readonly source: AttachmentSource;
}
export type EmailContent =
  | { readonly mode: 'direct'; readonly body: string }
  | { readonly mode: 'template'; readonly templateId: string; readonly variables: Readonly<Record<string, string>> };
export interface EmailRequest {
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly bcc: readonly string[];
  readonly from: NamedAddress;
  readonly replyTo: NamedAddress;
  readonly subject: string;
  readonly content: EmailContent;
  readonly attachments: readonly AttachmentSpec[];
  /** herald's own fields: metadata, campaign, certified, tracking (see send-options.ts). */
  readonly options: SendOptionsRequest;
}

const isBlank = (v: string): boolean => v.trim() === '';
const HEADER_UNSAFE = /[\p{Cc}\u2028\u2029]/gu;
/** One space per control character (CR, LF, TAB, NUL, C1...), then trim: header-injection safe. */
const headerText = (v: string): string => v.replace(HEADER_UNSAFE, ' ').trim();

/**
 * Validates a POST /v1/email body; the first failing rule decides the rejection. The limits
 * (recipients, subject, attachments, metadata) are checked on counts and lengths before the
 * values they bound are read.
 */
export function parseEmailRequest(body: unknown, limits: RequestLimits = DEFAULT_LIMITS): Result<EmailRequest> {
  if (!isJsonObject(body)) return reject('invalidRequest1');

  const options = ownField(body, 'options');
  if (options !== undefined && !isJsonObject(options)) return reject('invalidRequest2');
  const ccRaw = options === undefined ? undefined : ownField(options, 'cc');
  const bccRaw = options === undefined ? undefined : ownField(options, 'bcc');
  if ((ccRaw !== undefined && !Array.isArray(ccRaw)) || (bccRaw !== undefined && !Array.isArray(bccRaw))) {
    return reject('invalidRequest2');
  }

  const toRaw = ownField(body, 'to');
  if (!Array.isArray(toRaw)) return reject('recipientMissing');
  if (toRaw.length === 0) return reject('noRecipients');

  const lists: readonly (readonly unknown[])[] = [toRaw, ccRaw ?? [], bccRaw ?? []];
  if (toRaw.length + (ccRaw?.length ?? 0) + (bccRaw?.length ?? 0) > limits.maxEmailRecipients) {
    return reject('tooManyRecipients', { detail: `at most ${limits.maxEmailRecipients} addresses in to, cc and bcc together` });
  }
  const recipients = parseRecipients(lists);
  if (!recipients.ok) return recipients;
  const [to = [], cc = [], bcc = []] = recipients.value;

  const fields = parseEmailContentFields(body, limits);
  if (!fields.ok) return fields;
  const { from, replyTo, subject, content } = fields.value;
  const attachments = parseAttachments(ownField(body, 'attachments'), limits);
  if (!attachments.ok) return attachments;
  const sendOptions = parseSendOptions(body, 'email', limits);
  if (!sendOptions.ok) return sendOptions;

  return ok({
    to,
    cc,
    bcc,
    from,
    replyTo,
    subject,
    content,
    attachments: attachments.value,
    options: sendOptions.value,
  });
}

/** The sender, reply address, subject and content of an email, as POST /v1/email checks them (rules 7 on). */
export interface EmailContentFields {
  readonly from: NamedAddress;
  readonly replyTo: NamedAddress;
  readonly subject: string;
  readonly content: EmailContent;
}

/** from, replyTo, subject and body | template_id + variables, in POST /v1/email's order and texts (campaigns share them). */
export function parseEmailContentFields(body: JsonObject, limits: RequestLimits = DEFAULT_LIMITS): Result<EmailContentFields> {
  const from = parseFrom(ownField(body, 'from'));
  if (!from.ok) return from;
  const replyTo = parseReplyTo(ownField(body, 'replyTo'));
  if (!replyTo.ok) return replyTo;

  const subjectRaw = ownField(body, 'subject');
  if (typeof subjectRaw === 'string' && subjectRaw.length > limits.maxSubjectLength) {
    return reject('subjectTooLong', { detail: `at most ${limits.maxSubjectLength} characters` });
  }
  const subject = typeof subjectRaw === 'string' ? headerText(subjectRaw) : '';
  if (subject === '') return reject('subjectMissing');

  const content = parseContent(body);
  if (!content.ok) return content;
  return ok({ from: from.value, replyTo: replyTo.value, subject, content: content.value });
}

const WRONG_STRUCTURE: readonly WireCode[] = ['recipientWrongStructure', 'ccWrongStructure', 'bccWrongStructure'];

/** Rules 4 to 6 over to, cc and bcc; each rule runs over all three lists before the next. */
function parseRecipients(lists: readonly (readonly unknown[])[]): Result<string[][]> {
  if (lists.some((list) => list.some((e) => !isJsonObject(e) || !Object.hasOwn(e, 'email')))) {
    return reject('addresseesUndefined');
  }
  const emails = lists.map((list) => list.map((e) => (e as JsonObject)['email']));
  if (emails.some((list) => list.some((email) => typeof email === 'string' && isBlank(email)))) {
    return reject('recipientEmpty');
  }
  const parsed: string[][] = [];
  for (const [i, list] of emails.entries()) {
    const addresses = list.map((email) => (typeof email === 'string' ? parseAddress(email) : null));
    const offending: Offending[] = list.filter((_, j) => addresses[j] === null).map((email) => ({ email: echoText(email) }));
    if (offending.length > 0) return reject(WRONG_STRUCTURE[i] ?? 'recipientWrongStructure', { offending });
    parsed.push(addresses as string[]);
  }
  return ok(parsed);
}

function parseFrom(raw: unknown): Result<NamedAddress> {
  if (!isJsonObject(raw) || !Object.hasOwn(raw, 'email')) return reject('missingFrom');
  const email = raw['email'];
  const name = ownField(raw, 'name');
  const address = typeof email === 'string' ? parseAddress(email) : null;
  if (typeof name !== 'string' || address === null) {
    return reject('fromWrongStructure', { offending: [{ email: echoText(email) }] });
  }
  return ok({ email: address, name: headerText(name) });
}

function parseReplyTo(raw: unknown): Result<NamedAddress> {
  if (!isJsonObject(raw)) return reject('missingReplyTo');
  const name = ownField(raw, 'name');
  if (typeof name !== 'string') return reject('missingReplyToName');
  const email = ownField(raw, 'email');
  if (typeof email !== 'string') return reject('missingReplyToEmail');
  const address = parseAddress(email);
  if (address === null) return reject('replyToWrongStructure');
  return ok({ email: address, name: headerText(name) });
}

/** Template mode wins over `body` when a non-empty string template_id is given. */
function parseContent(body: JsonObject): Result<EmailContent> {
  const templateId = ownField(body, 'template_id');
  if (typeof templateId === 'string' && templateId !== '') {
    const raw = ownField(body, 'variables');
    if (raw === undefined) return ok({ mode: 'template', templateId, variables: Object.create(null) as Record<string, string> });
    if (!isJsonObject(raw)) return reject('variableSyntax');
    // A prototype-less object: keys such as __proto__ or constructor stay plain data.
    const variables = Object.create(null) as Record<string, string>;
    for (const key of Object.keys(raw)) {
      const value = raw[key];
      if (typeof value !== 'string') return reject('variableSyntax');
      variables[key] = value;
    }
    return ok({ mode: 'template', templateId, variables });
  }
  if (templateId !== undefined && templateId !== null && templateId !== '') return reject('templateNotFound');
  const text = ownField(body, 'body');
  if (typeof text !== 'string' || isBlank(text)) return reject('bodyMissing');
  return ok({ mode: 'direct', body: text });
}

const FILENAME_UNSAFE = /[\p{Cc}\u2028\u2029]/gu;
// data:<mediatype>;base64,<payload>; the media type is kept, so it must be a clean
// type/subtype with optional token or quoted parameters (it ends up in a MIME header).
const DATA_URI = /^data:([^,]*);base64,(.*)$/is;
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\p{Cc}]*"))*$`, 'u');

function parseAttachments(raw: unknown, limits: RequestLimits): Result<AttachmentSpec[]> {
  if (raw === undefined || raw === null) return ok([]);
  if (!Array.isArray(raw)) return reject('attachmentsNotArray');
  const items = raw as readonly unknown[];
  if (items.length > limits.maxAttachments) return reject('tooManyAttachments', { detail: `at most ${limits.maxAttachments} attachments` });
  // All filenames are checked before any path, so the filename text wins on a mixed request.
  const filenames: string[] = [];
  for (const item of items) {
    const filename = isJsonObject(item) ? cleanFilename(ownField(item, 'filename')) : null;
    if (filename === null) return reject('attachmentFilenameMissing');
    filenames.push(filename);
  }
  const specs: AttachmentSpec[] = [];
  const tooLarge = reject('attachmentsTooLarge', { detail: `at most ${limits.maxAttachmentBytes} bytes decoded, all attachments together` });
  let decodedBytes = 0;
  for (const [i, item] of items.entries()) {
    const source = parseSource(ownField(item as JsonObject, 'path'));
    if (source === null) return reject('attachmentPathMissing');
    // Decoding is linear and the body limit bounds it; the total is checked as each one is decoded.
    if (source.kind === 'data') {
      decodedBytes += source.size;
      if (decodedBytes > limits.maxAttachmentBytes) return tooLarge;
    }
    specs.push({ filename: filenames[i] ?? '', source });
  }
  return ok(specs);
}

/** Base name without control characters; null when nothing usable remains. */
function cleanFilename(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const stripped = raw.replace(FILENAME_UNSAFE, '');
  const base = stripped.slice(Math.max(stripped.lastIndexOf('/'), stripped.lastIndexOf('\\')) + 1).trim();
  // "." and ".." are directory references, not file names.
  return base === '' || base === '.' || base === '..' ? null : base;
}

function parseSource(raw: unknown): AttachmentSource | null {
  if (typeof raw !== 'string') return null;
  const path = raw.trim();
  if (path === '') return null;
  if (/^data:/i.test(path)) return parseDataUri(path);
  let url: URL;
  try {
    url = new URL(path);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
  return { kind: 'url', url: url.href };
}

function parseDataUri(path: string): AttachmentSource | null {
  const match = DATA_URI.exec(path);
  if (match === null) return null;
  const mediaType = (match[1] ?? '').trim();
  if (mediaType !== '' && !MEDIA_TYPE.test(mediaType)) return null;
  const base64 = (match[2] ?? '').replace(/\s+/g, '');
  const bytes = Buffer.from(base64, 'base64');
  // Buffer skips foreign characters and tolerates missing padding; a round trip
  // that does not give back the payload exactly means it was not canonical base64.
  if (bytes.length === 0 || bytes.toString('base64') !== base64) return null;
  return { kind: 'data', contentType: mediaType === '' ? 'application/octet-stream' : mediaType, base64, size: bytes.length };
}

// A body is sent as HTML when it contains markup; otherwise as plain text.
export const looksLikeHtml = (body: string): boolean => /<\/?[a-z][a-z0-9-]*(\s[^>]*)?\/?>/i.test(body);
