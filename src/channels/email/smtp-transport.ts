import type { ConnectionOptions } from 'node:tls';
import nodemailer from 'nodemailer';
import type { EmailPayload } from '../../domain/outbound.ts';
import type { Outcome, Transport } from '../channel.ts';
import { prepareEmail, type AttachmentResolver, type ComposeSettings } from './compose.ts';
import type { DkimKeyLookup } from './dkim.ts';
import { CONTENT_ACCESS } from './mime.ts';
import { deliveryNoticeRequest } from './delivery-notice-request.ts';
import { parseRelayUrl, type RelayAddress } from './relay-url.ts';
import { smtpErrorOutcome, smtpSentOutcome } from './smtp-outcome.ts';
import { certifiedMessage, sendCertified, withEvidence, type CertifiedSession } from './transcript.ts';

export interface SmtpRelayOptions extends ComposeSettings {
  /**
   * `smtp://[user:pass@]host[:port]` (STARTTLS when offered; port 587) or `smtps://…` (TLS
   * from the start; port 465); `?delivered=accepted` counts the relay's 250 as delivery.
   */
  readonly url: string;
  /** Required here: real mail goes out signed whenever the sender domain has a key. */
  readonly dkim: DkimKeyLookup;
  readonly resolveAttachments: AttachmentResolver;
  /** Connections kept open to the relay, and messages sent over one before it is renewed; default 5 and 100. */
  readonly pool?: { readonly maxConnections: number; readonly maxMessages: number };
  /** tls.connect options, e.g. `{ rejectUnauthorized: false }` for a test peer's self-signed certificate. */
  readonly tls?: ConnectionOptions;
  /** Name given in EHLO; default nodemailer's (the machine's host name). */
  readonly heloName?: string;
  /** Overrides of SMTP_TIMEOUTS (ms). */
  readonly timeouts?: Partial<SmtpTimeouts>;
}

/**
 * Timeouts (ms). They bound how long a worker waits on a silent peer, and with it how
 * long a graceful stop can take; RFC 5321 §4.5.3.2 asks for minutes per command, which
 * only a relay that stalls on purpose would need.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 120_000 } as const;
export type SmtpTimeouts = { readonly [K in keyof typeof SMTP_TIMEOUTS]: number };

/**
 * Relays every message through one smart host over a pool of SMTP connections.
 * Acceptance by the relay is `sent`, not delivered: the relay may still bounce it (to
 * the VERP address), and where it offers DSN it is asked to report delivery too
 * (delivery-notice-request.ts), which the inbound listener turns into `delivered`. With
 * `?delivered=accepted` the relay's 250 is delivery itself (a last hop). Over smtp://, STARTTLS is used when the relay offers it and a
 * failed upgrade is an error, never a fall-back to plain text, since the credentials
 * come next. Credentials never appear in an outcome (peer is host:port; any echo of
 * them in a reply is masked) and nodemailer logs nothing.
 */
export function smtpRelayTransport(options: SmtpRelayOptions): Transport<EmailPayload> & { close(): Promise<void> } {
  const relay = parseRelayUrl(options.url);
  const peer = `${relay.host}:${relay.port}`;
  const connection = {
    host: relay.host,
    port: relay.port,
    secure: relay.secure,
    ...(relay.auth === undefined ? {} : { auth: relay.auth }),
    ...(options.heloName === undefined ? {} : { name: options.heloName }),
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    ...SMTP_TIMEOUTS,
    ...options.timeouts,
    ...CONTENT_ACCESS,
  };
  const mailer = nodemailer.createTransport({
    pool: true,
    ...connection,
    maxConnections: options.pool?.maxConnections ?? 5,
    maxMessages: options.pool?.maxMessages ?? 100,
    logger: false,
  });
  // Failures reach each send's promise; an event nobody listens to must not crash the process.
  mailer.on('error', () => {});
  const mask = credentialMask(relay.auth);
  // Certified messages take a session of their own, recorded; its evidence names the relay, not the recipient's MX.
  const certifiedSession: CertifiedSession = { options: connection, delivery: 'relay', host: relay.host, clock: options.clock ?? Date.now, mask };

  return {
    name: 'smtp',
    async send(message, signal): Promise<Outcome> {
      const prepared = await prepareEmail(message, signal, options, peer);
      if (!prepared.ok) return prepared.outcome;
      // Sent only when the relay offers DSN (nodemailer drops the parameters otherwise).
      const dsn = deliveryNoticeRequest(message, relay.delivered);
      const delivered = relay.delivered === 'accepted';
      let outcome: Outcome;
      try {
        if (message.payload.certified === true) {
          const { info, evidence } = await sendCertified(certifiedSession, await certifiedMessage(message, prepared.mail, dsn), signal);
          outcome = withEvidence(smtpSentOutcome(info, peer, delivered), evidence);
        } else {
          const info = await mailer.sendMail({ ...prepared.mail, dsn, signal });
          outcome = smtpSentOutcome(info, peer, delivered);
        }
      } catch (error) {
        outcome = smtpErrorOutcome(error, peer);
      }
      return { ...outcome, response: mask(outcome.response) };
    },
    async close() {
      mailer.close();
    },
  };
}

/**
 * Replaces the user name and password — as written, and base64 as AUTH sends them — in
 * a peer's words. Values shorter than 3 characters are left alone: masking every "a"
 * would garble the reply and protect nothing.
 */
function credentialMask(auth: RelayAddress['auth']): (text: string) => string {
  if (auth === undefined) return (text) => text;
  const secrets = [auth.user, auth.pass, `\0${auth.user}\0${auth.pass}`]
    .filter((s) => s.length >= 3)
    .flatMap((s) => [s, Buffer.from(s).toString('base64'), encodeURIComponent(s)])
    .sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((masked, secret) => masked.split(secret).join('***'), text);
}
