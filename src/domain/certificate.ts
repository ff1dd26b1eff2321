import { isJsonObject, ownField } from './json-object.ts';

// Certified delivery: what a transport observed while a certified message was
// accepted (the evidence), and the signed receipt made of it. The receipt is a
// compact JWS (EdDSA, Ed25519) whose payload is ReceiptPayload; anyone holding the
// published JWKS and the .eml can check both without asking herald.

/** Who accepted the message: the recipient's own MX host, the configured relay, or the capture transport (no network). */
export type DeliveryPath = 'mx' | 'relay' | 'capture';

/** What an email transport saw while a certified message was accepted. */
export interface DeliveryEvidence {
  readonly delivery: DeliveryPath;
  /** The From header's address. */
  readonly from: string;
  readonly recipient: string;
  readonly subject: string;
  /** The exact MIME bytes that went out (DKIM signature included), and their SHA-256 in hex. */
  readonly mime: Uint8Array;
  readonly sha256: string;
  /** The MX host name (mx), the relay's host (relay); null for capture. */
  readonly host: string | null;
  /** The address the TCP connection actually went to; null for capture. */
  readonly ip: string | null;
  /** The SMTP session, one line each: `C: …` client, `S: …` server, `* …` a note (connection, TLS). AUTH redacted. */
  readonly transcript: readonly string[];
  /** The peer's reply to the end of DATA (`250 …`); null for capture. */
  readonly smtpResponse: string | null;
  /** The peer's queue id, when its 250 reply names one in a known form. */
  readonly queueId: string | null;
  readonly connectedAt: number | null;
  /** When the 250 to DATA arrived (capture: when the message was rendered). */
  readonly acceptedAt: number;
}

/** The signed payload of a receipt, as it travels (times in ISO-8601 UTC). */
export interface ReceiptPayload {
  readonly msgid: string;
  readonly account: string;
  readonly from: string;
  readonly recipient: string;
  readonly subject: string;
  readonly delivery: DeliveryPath;
  /** SHA-256 of the .eml bytes, lower-case hex (what `sha256sum message.eml` prints). */
  readonly sha256: string;
  readonly mx_host: string | null;
  readonly mx_ip: string | null;
  readonly smtp_transcript: readonly string[];
  readonly smtp_response: string | null;
  readonly queue_id: string | null;
  readonly connected_at: string | null;
  readonly accepted_at: string;
  readonly issued_at: string;
  /** The installation's public URL; its `/.well-known/jwks.json` holds the key. */
  readonly issuer: string;
}

/** The JWS header's `typ`: says what the token is, so a receipt is never mistaken for another JWS of the same key. */
export const RECEIPT_TYPE = 'herald-delivery-receipt+jws';
export const RECEIPT_ALGORITHM = 'EdDSA';

/** A receipt once signed, and what is stored with it; `issuedAt` in epoch ms. */
export interface IssuedCertificate {
  readonly receipt: string;
  /** The MIME the receipt's sha256 covers, as stored and served (`.eml`). */
  readonly eml: string;
  readonly url: string;
  readonly issuedAt: number;
}

/** Signs a transport's evidence into a receipt (app/certificates.ts); handed to the outbox. */
export type CertificateIssuer = (subject: { readonly msgid: string; readonly accountId: string }, evidence: DeliveryEvidence) => Promise<IssuedCertificate>;

const iso = (ms: number): string => new Date(ms).toISOString();

export function receiptPayload(
  subject: { readonly msgid: string; readonly accountId: string },
  evidence: DeliveryEvidence,
  issuedAt: number,
  issuer: string,
): ReceiptPayload {
  return {
    msgid: subject.msgid,
    account: subject.accountId,
    from: evidence.from,
    recipient: evidence.recipient,
    subject: evidence.subject,
    delivery: evidence.delivery,
    sha256: evidence.sha256,
    mx_host: evidence.host,
    mx_ip: evidence.ip,
    smtp_transcript: evidence.transcript,
    smtp_response: evidence.smtpResponse,
    queue_id: evidence.queueId,
    connected_at: evidence.connectedAt === null ? null : iso(evidence.connectedAt),
    accepted_at: iso(evidence.acceptedAt),
    issued_at: iso(issuedAt),
    issuer,
  };
}

/** `<publicUrl>/v1/email/<msgid>/certificate`: the link the `email.certified` event carries. */
export function certificateUrl(publicUrl: string, msgid: string): string {
  return `${publicUrl}/v1/email/${encodeURIComponent(msgid)}/certificate`;
}

export function jwksUrl(publicUrl: string): string {
  return `${publicUrl}/.well-known/jwks.json`;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const text = (v: unknown): v is string => typeof v === 'string';
const textOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';

/**
 * A verified payload read back as a ReceiptPayload, or undefined when it does not have
 * the receipt's shape (a JWS of the same key made for something else, or an older form).
 */
export function parseReceiptPayload(value: unknown): ReceiptPayload | undefined {
  if (!isJsonObject(value)) return undefined;
  const f = (key: string): unknown => ownField(value, key);
  const transcript = f('smtp_transcript');
  const sha256 = f('sha256');
  const ok =
    text(f('msgid')) && text(f('account')) && text(f('from')) && text(f('recipient')) && text(f('subject'))
    && (f('delivery') === 'mx' || f('delivery') === 'relay' || f('delivery') === 'capture')
    && text(sha256) && SHA256_HEX.test(sha256)
    && textOrNull(f('mx_host')) && textOrNull(f('mx_ip'))
    && Array.isArray(transcript) && transcript.every(text)
    && textOrNull(f('smtp_response')) && textOrNull(f('queue_id')) && textOrNull(f('connected_at'))
    && text(f('accepted_at')) && text(f('issued_at')) && text(f('issuer'));
  return ok ? (value as unknown as ReceiptPayload) : undefined;
}
