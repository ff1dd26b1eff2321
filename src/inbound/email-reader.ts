import { authenticate, type AuthenticateResult, type DNSResolver } from 'mailauth';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import {
  MAX_HEADER_VALUE, MAX_INBOUND_ATTACHMENTS, MAX_KEPT_HEADERS, MAX_REFERENCES_READ,
  type EmailAuthentication, type EmailHeader, type ReadEmail,
} from '../domain/inbound-email.ts';

// Reads an email sent to a receiving domain: SPF (the client's address, HELO and MAIL
// FROM), DKIM and DMARC with mailauth, then the fields with mailparser. Both libraries
// take hostile input as their daily bread; the bounds on what is kept are
// domain/inbound-email.ts's.

export type { DNSResolver };

/** What the SMTP session knew of the message: whom SPF asks about. */
export interface SmtpClient {
  readonly ip: string;
  readonly helo: string;
  /** MAIL FROM; '' for the null sender. */
  readonly mailFrom: string;
}

export class TooManyAttachments extends Error {
  override name = 'TooManyAttachments';
}

// Inline images of an HTML body stay attachments (cid: links name them); no text is made from
// HTML; a message attached to this one (a forward) stays one attachment, whole (ignoreEmbedded).
const PARSER_OPTIONS = { ignoreEmbedded: true, skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, checksumAlgo: false } as const;

/** Reads `raw`; throws TooManyAttachments past MAX_INBOUND_ATTACHMENTS, and whatever mailparser cannot read. */
export async function readEmail(raw: Buffer, client: SmtpClient, resolver: DNSResolver, mta: string): Promise<ReadEmail> {
  const [checked, mail] = await Promise.all([
    authenticate(raw, { ip: client.ip, helo: client.helo, sender: client.mailFrom, mta, resolver, disableArc: true, disableBimi: true }),
    simpleParser(raw, PARSER_OPTIONS),
  ]);
  if (mail.attachments.length > MAX_INBOUND_ATTACHMENTS) throw new TooManyAttachments(`more than ${MAX_INBOUND_ATTACHMENTS} attachments`);
  return {
    from: addresses(mail.from)[0] ?? null,
    cc: addresses(mail.cc),
    subject: mail.subject ?? null,
    text: mail.text ?? null,
    html: typeof mail.html === 'string' ? mail.html : null,
    messageId: mail.messageId ?? null,
    answers: answered(mail),
    headers: keptHeaders(mail),
    attachments: mail.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, content: a.content })),
    authentication: verdicts(checked),
  };
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  if (field === undefined) return [];
  const found: string[] = [];
  const walk = (list: readonly { address?: string | undefined; group?: readonly { address?: string | undefined }[] | undefined }[]): void => {
    for (const entry of list) {
      if (entry.address !== undefined && entry.address !== '') found.push(entry.address.toLowerCase());
      if (entry.group !== undefined) walk(entry.group);
    }
  };
  for (const object of Array.isArray(field) ? field : [field]) walk(object.value);
  return found;
}

/** In-Reply-To first, then References from the newest (the message answered is usually the last). */
function answered(mail: ParsedMail): string[] {
  const references = mail.references === undefined ? [] : (Array.isArray(mail.references) ? mail.references : [mail.references]);
  const ids = [...(mail.inReplyTo === undefined ? [] : mail.inReplyTo.split(/\s+/)), ...[...references].reverse()];
  return [...new Set(ids.filter((id) => id !== ''))].slice(0, MAX_REFERENCES_READ);
}

function keptHeaders(mail: ParsedMail): EmailHeader[] {
  return mail.headerLines.slice(0, MAX_KEPT_HEADERS).map(({ line }) => {
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    // Unfolded (RFC 5322 §2.2.3), as a reader expects one header to be one line.
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/\r?\n[ \t]/g, ' ').trim();
    return { name: name.trim(), value: value.slice(0, MAX_HEADER_VALUE) };
  });
}

function verdicts(checked: AuthenticateResult): EmailAuthentication {
  const dkim = checked.dkim.results;
  return {
    spf: checked.spf === false ? 'none' : checked.spf.status.result,
    // One passing signature is a pass (RFC 6376 §6.1); none at all is `none`.
    dkim: dkim.some((r) => r.status.result === 'pass') ? 'pass' : (dkim[0]?.status.result ?? 'none'),
    dmarc: checked.dmarc === false ? 'none' : checked.dmarc.status.result,
  };
}
