import addressparser from 'nodemailer/lib/addressparser';
import mailsplit from 'mailsplit';
import sjson from 'secure-json-parse';
import { parseAddress } from '../domain/email-address.ts';
import type { NamedAddress } from '../domain/email-request.ts';
import { bytesWithCrlfBreaks } from '../domain/line-breaks.ts';
import type { RequestLimits } from '../domain/request-limits.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { parseSendOptions } from '../domain/send-options.ts';
import type { RecipientRole, SubmittedEmail } from '../domain/submitted-email.ts';

// DATA → SubmittedEmail: what the message's headers say (From, Reply-To, To, Cc, Subject),
// what herald's own headers ask for, and the bytes to keep. The headers are read and edited
// with mailsplit's Headers, which rebuilds only the lines it changed, so the client's bytes
// stay as they were. The bodies are not parsed here: the views read them from the kept MIME
// when asked (app/email-bodies.ts), so the path to the 250 reads the header block only.

const HEADER_END = Buffer.from('\r\n\r\n');
/** herald's options ride on these headers and never leave it (docs/smtp-submission.md). */
const OWN_HEADER = /^x-herald-/i;
/** As the HTTP Idempotency-Key: 1 to 255 printable ASCII characters. */
const VALID_IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;
/** A part of the message is HTML: tracking can apply (channels/email/submitted-mime.ts finds the parts themselves). */
const HTML_PART = /^content-type:[ \t]*text\/html\b/im;

export interface SubmissionEnvelope {
  readonly mailFrom: string;
  readonly rcptTo: readonly string[];
}

const invalid = (detail: string) => reject('invalidField', { detail });

/** Reads one submitted message; `now` dates a message that came without a Date. */
export async function readSubmittedMessage(raw: Buffer, envelope: SubmissionEnvelope, limits: RequestLimits, now: number): Promise<Result<SubmittedEmail>> {
  const crlf = bytesWithCrlfBreaks(raw);
  const end = crlf.indexOf(HEADER_END);
  if (end < 0) return invalid('the message has no body: a blank line must end its headers');
  const headers = new mailsplit.Headers(crlf.subarray(0, end + 2));
  const options = ownOptions(headers, limits);
  if (!options.ok) return options;

  const from = firstAddress(headers, 'from');
  if (from === undefined) return invalid('the From header must hold one valid address');
  const replyTo = firstAddress(headers, 'reply-to') ?? from;
  const to = addressesOf(headers, 'to');
  const cc = addressesOf(headers, 'cc');

  const roleOf = (email: string): RecipientRole => {
    const wanted = email.toLowerCase();
    if (to.some((a) => a.toLowerCase() === wanted)) return 'to';
    return cc.some((a) => a.toLowerCase() === wanted) ? 'cc' : 'bcc';
  };

  // What leaves: no Bcc (a blind copy stays blind), none of herald's own headers, and a Date.
  headers.remove('bcc');
  for (const name of new Set(headers.getList().map((line) => line.key).filter((key) => OWN_HEADER.test(key)))) headers.remove(name);
  if (!headers.hasHeader('date')) headers.add('Date', rfc5322Date(now));
  const mime = Buffer.concat([headers.build('\r\n'), crlf.subarray(end + HEADER_END.length)]);

  return ok({
    envelopeFrom: envelope.mailFrom,
    recipients: envelope.rcptTo.map((email) => ({ email, role: roleOf(email) })),
    from, replyTo,
    subject: headerValue(headers, 'subject'),
    hasHtml: HTML_PART.test(crlf.toString('latin1')),
    to, cc,
    options: options.value.options,
    idempotencyKey: options.value.idempotencyKey,
    mime,
  });
}

type MessageHeaders = InstanceType<typeof mailsplit.Headers>;

/**
 * A header's value as its writer meant it: unfolded, and its RFC 2047 encoded words decoded
 * (nodemailer writes a JSON value such as X-Herald-Metadata's as encoded words).
 */
const headerValue = (headers: MessageHeaders, name: string): string => headers.libmime.decodeWords(utf8(headers.getFirst(name)));

/** mailsplit keeps header lines as binary strings (a character per byte): raw UTF-8 (SMTPUTF8, RFC 6532) is read as UTF-8. */
const utf8 = (binary: string): string => Buffer.from(binary, 'latin1').toString('utf8');

/** X-Herald-Metadata, -Track, -Certified and -Idempotency-Key, checked as the API checks its fields. */
function ownOptions(headers: MessageHeaders, limits: RequestLimits): Result<{ options: SubmittedEmail['options']; idempotencyKey: string | null }> {
  const body: Record<string, unknown> = {};
  const metadata = headerValue(headers, 'x-herald-metadata');
  if (metadata !== '') {
    try {
      body.metadata = sjson.parse(metadata, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch {
      return invalid('X-Herald-Metadata must be a JSON object');
    }
  }
  if (headers.hasHeader('x-herald-track')) {
    const asked = new Set(headerValue(headers, 'x-herald-track').toLowerCase().split(/[\s,]+/).filter((word) => word !== ''));
    const known = ['opens', 'clicks', 'none'];
    if (asked.size === 0 || [...asked].some((word) => !known.includes(word)) || (asked.has('none') && asked.size > 1)) {
      return invalid('X-Herald-Track must be `opens`, `clicks`, `opens, clicks` or `none`');
    }
    body.tracking = { opens: asked.has('opens'), clicks: asked.has('clicks') };
  }
  if (headers.hasHeader('x-herald-certified')) {
    const certified = headerValue(headers, 'x-herald-certified').toLowerCase();
    if (certified !== 'true' && certified !== 'false') return invalid('X-Herald-Certified must be `true` or `false`');
    body.certified = certified === 'true';
  }
  let idempotencyKey: string | null = null;
  if (headers.hasHeader('x-herald-idempotency-key')) {
    const key = headerValue(headers, 'x-herald-idempotency-key');
    if (!VALID_IDEMPOTENCY_KEY.test(key)) return reject('idempotencyKeyInvalid');
    idempotencyKey = key;
  }
  const options = parseSendOptions(body, 'email', limits);
  if (!options.ok) return options;
  return ok({ options: options.value, idempotencyKey });
}

/** The header's addresses, display names decoded; groups give their members. */
function addressListOf(headers: MessageHeaders, name: string): { name: string; address: string }[] {
  return headers.get(name).flatMap((line) => addressparser(utf8(line.slice(line.indexOf(':') + 1)), { flatten: true }))
    .map((entry) => ({ name: headers.libmime.decodeWords(entry.name ?? ''), address: entry.address ?? '' }));
}

function firstAddress(headers: MessageHeaders, name: string): NamedAddress | undefined {
  const [first] = addressListOf(headers, name);
  const email = first === undefined ? null : parseAddress(first.address);
  return email === null || first === undefined ? undefined : { email, name: first.name };
}

function addressesOf(headers: MessageHeaders, name: string): string[] {
  return addressListOf(headers, name).flatMap((entry) => (entry.address === '' ? [] : [entry.address]));
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 5322 §3.3 date-time in UTC: `Sat, 28 Nov 2026 06:40:00 +0000`. */
export function rfc5322Date(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}
