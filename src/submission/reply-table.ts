import type { WireCode } from '../domain/wire-texts.ts';
import { WIRE_TEXTS } from '../domain/wire-texts.ts';
import type { SubmissionOutcome } from '../metrics/registry.ts';

// Every refusal of SMTP submission, in one table: the SMTP reply (RFC 5321 code, RFC 3463
// enhanced code) and the metric's reason. The texts are the API's for the same refusal
// (domain/wire-texts.ts), so a client reads the same words by either door;
// docs/smtp-submission.md lists them, and test/submission/ asserts each on the wire.

export interface SubmissionReply {
  readonly code: number;
  readonly enhanced: string;
  readonly text: string;
  readonly outcome: SubmissionOutcome;
}

const wire = (code: number, enhanced: string, wireCode: WireCode, outcome: SubmissionOutcome): SubmissionReply =>
  ({ code, enhanced, text: WIRE_TEXTS[wireCode], outcome });

/** Refusals named by a use case's rejection code (app/submit-email.ts, app/send-email.ts, app/idempotent-send.ts). */
const BY_REJECTION: Partial<Record<WireCode, SubmissionReply>> = {
  invalidApiKey: wire(535, '5.7.8', 'invalidApiKey', 'auth-failed'),
  keyNotAuthorized: wire(535, '5.7.8', 'keyNotAuthorized', 'scope'),
  ipNotAllowed: wire(535, '5.7.1', 'ipNotAllowed', 'ip-not-allowed'),
  serviceInactive: wire(550, '5.7.1', 'serviceInactive', 'inactive'),
  domainNotPermitted: wire(550, '5.7.1', 'domainNotPermitted', 'domain'),
  noMessagesLeft: wire(550, '5.7.1', 'noMessagesLeft', 'no-messages-left'),
  idempotencyKeyInvalid: wire(554, '5.6.0', 'idempotencyKeyInvalid', 'idempotency'),
  idempotencyKeyReused: wire(554, '5.7.0', 'idempotencyKeyReused', 'idempotency'),
  // The first submission with this key is still being stored: the client tries again and gets its answer.
  idempotencyKeyInFlight: wire(451, '4.7.0', 'idempotencyKeyInFlight', 'idempotency'),
  storeUnavailable: wire(451, '4.3.0', 'storeUnavailable', 'unavailable'),
};

/** The reply to a refused step; a rejection with no row of its own is the message's content (554 5.6.0, the API's 400). */
export function replyToRejection(code: WireCode, detail?: string): SubmissionReply {
  const row = BY_REJECTION[code];
  if (row !== undefined) return row;
  return { code: 554, enhanced: '5.6.0', text: detail === undefined ? WIRE_TEXTS[code] : `${WIRE_TEXTS[code]}: ${detail}`, outcome: 'invalid-message' };
}

/** Refusals of the protocol itself, with herald's texts in the API's style. */
export const REPLIES = {
  // A temporary reply, so clients retry; the text carries the API's error code and text.
  rateLimited: { code: 451, enhanced: '4.7.0', text: `RATE_LIMIT_EXCEEDED ${WIRE_TEXTS.rateLimited}`, outcome: 'rate-limited' },
  authBraked: { code: 454, enhanced: '4.7.0', text: 'Too many failed authentication attempts from this address, try again in a minute', outcome: 'auth-braked' },
  authNeedsTls: { code: 538, enhanced: '5.7.11', text: 'Encryption required: issue STARTTLS first (without a certificate, AUTH is offered to loopback clients only)', outcome: 'auth-failed' },
  tooManyRecipients: { code: 452, enhanced: '4.5.3', text: WIRE_TEXTS.tooManyRecipients, outcome: 'too-many-recipients' },
  tooManyCommands: { code: 421, enhanced: '4.7.0', text: 'Too many refused recipients, closing the connection', outcome: 'too-many-recipients' },
  badAddress: { code: 553, enhanced: '5.1.3', text: WIRE_TEXTS.recipientWrongStructure, outcome: 'bad-address' },
  tooLarge: { code: 552, enhanced: '5.3.4', text: WIRE_TEXTS.bodyTooLarge, outcome: 'too-large' },
  tooManyConnections: { code: 421, enhanced: '4.7.0', text: 'Too many connections from this address, try again later', outcome: 'rate-limited' },
  failed: { code: 451, enhanced: '4.3.0', text: 'Could not keep the message, try again later', outcome: 'error' },
} as const satisfies Record<string, SubmissionReply>;

/** The reply as smtp-server sends it: an Error with `responseCode`, its message starting with the enhanced code. */
export function smtpError(reply: SubmissionReply): Error {
  return Object.assign(new Error(`${reply.enhanced} ${reply.text}`), { responseCode: reply.code });
}
