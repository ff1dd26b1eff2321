import type SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import type { EmailPayload, Outbound } from '../../domain/outbound.ts';
import type { DeliveryConfirmation } from './relay-url.ts';

// What herald asks a relay to report about each message (RFC 3461 DSN parameters).
// nodemailer sends them only to a relay that offers DSN in its EHLO reply. The notices
// come back to the VERP envelope sender, i.e. to the inbound listener
// (app/record-inbound-report.ts), which knows the message by ENVID as well.

/** Printable ASCII without `+` and `=`: the address needs no xtext escapes (ORCPT is xtext, RFC 3461 §4.2). */
const PLAIN_XTEXT = /^[!-*,-<>-~]+$/;

/**
 * - ENVID: the msgid, echoed in every notice as Original-Envelope-Id;
 * - RET=HDRS: only the headers come back, never the message's content;
 * - NOTIFY: success, failure and delay — success is what makes `delivered`; when the
 *   relay's 250 already counts as delivered (`?delivered=accepted`), only failures and delays;
 * - ORCPT: the recipient as herald knows it, so a notice names it even after the relay
 *   rewrote the address (an alias, a forward). Left out for an internationalised address,
 *   whose ORCPT form (RFC 6533) nodemailer does not write.
 */
export function deliveryNoticeRequest(message: Outbound<EmailPayload>, confirmation: DeliveryConfirmation): SMTPConnection.DSNOptions {
  return {
    envid: message.msgid,
    ret: 'HDRS',
    notify: confirmation === 'notice' ? ['SUCCESS', 'FAILURE', 'DELAY'] : ['FAILURE', 'DELAY'],
    ...(PLAIN_XTEXT.test(message.recipient) ? { orcpt: message.recipient } : {}),
  };
}
