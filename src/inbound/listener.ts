import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Config } from '../config.ts';
import { NoticeTooEarly, recordInboundReport, type InboundDeps, type InboundEnvelope } from '../app/record-inbound-report.ts';
import { parseVerp } from '../domain/verp-address.ts';
import type { AppDeps } from '../app/deps.ts';
import { resolverFor } from '../app/verify-sender-domain.ts';
import { MAX_INBOUND_RECIPIENTS } from '../domain/inbound-email.ts';
import { keepEnhancedCodesAsWritten } from '../smtp-enhanced-codes.ts';
import { listenSmtp } from '../smtp-listen.ts';
import { emailReceiver, type ReceivingMail } from './email-receiver.ts';
import type { DNSResolver } from './email-reader.ts';
import { readInboundReport } from './report-reader.ts';

// herald's mail server. The bounce domain's side takes DSNs sent to the per-message VERP
// addresses (`b+<msgid>-<tag>@<bounce domain>`) and feedback-loop reports sent to postmaster@,
// abuse@ or fbl@, one recipient per transaction. The receiving domains' side
// (inbound/email-receiver.ts, when given) takes mail to any address at an account's verified
// receiving domain, up to MAX_INBOUND_RECIPIENTS a transaction, as the domain's rules say
// (a `refuse` rule: 550 5.7.1; docs/inbound-email.md). No AUTH, no relaying (every other
// recipient gets 550), a size limit, STARTTLS only when a certificate is configured. A
// report it takes is always kept (app/record-inbound-report.ts) and answered 250, even
// when it cannot be read; a store failure answers 451, so the sender retries,
// and so does a success notice that overtook the outbox (the message still `sending`).

/** Role mailboxes of the bounce domain: feedback loops and RFC 5321 §4.5.1's postmaster. */
export const ROLE_MAILBOXES: readonly string[] = ['postmaster', 'abuse', 'fbl'];

/** Largest message taken: a DSN that returns a full original with attachments fits. */
export const INBOUND_MAX_BYTES = 25 * 1024 * 1024;

export interface InboundListenerOptions {
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly host: string;
  readonly bounceDomain: string;
  readonly maxBytes?: number;
  /** PEM key and certificate: STARTTLS is offered only with them. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  readonly logger: Logger;
  /** Keeps one message; a throw makes the listener answer 451 (try again later). */
  readonly receive: (envelope: InboundEnvelope, raw: Buffer) => Promise<void>;
  /** Receiving domains; without it only the bounce domain's mailboxes are taken. */
  readonly receiving?: ReceivingMail;
}

export interface InboundListener {
  readonly port: number;
  close(): Promise<void>;
}

/** Whether the bounce domain takes mail for this address. */
export function acceptsRecipient(address: string, bounceDomain: string): boolean {
  // Tagged or not: whether the tag is right is the report's matter (app/record-inbound-report.ts), so a forgery is kept and counted.
  if (parseVerp(address, bounceDomain) !== null) return true;
  const at = address.lastIndexOf('@');
  const local = (at < 0 ? address : address.slice(0, at)).toLowerCase();
  if (!ROLE_MAILBOXES.includes(local)) return false;
  // A bare `postmaster` (no domain) must be accepted by every SMTP server.
  return at < 0 ? local === 'postmaster' : address.slice(at + 1).toLowerCase() === bounceDomain.toLowerCase();
}

const smtpError = (code: number, message: string): Error => Object.assign(new Error(message), { responseCode: code });

export async function startInboundListener(options: InboundListenerOptions): Promise<InboundListener> {
  keepEnhancedCodesAsWritten();
  const maxBytes = options.maxBytes ?? INBOUND_MAX_BYTES;
  const log = options.logger.child({ component: 'inbound-smtp' });
  const { receiving } = options;
  const isReport = (address: string): boolean => acceptsRecipient(address, options.bounceDomain);
  const refuseUnknown = (address: string): Error => smtpError(550, `<${address}>: no such recipient here`);
  const server = new SMTPServer({
    name: options.bounceDomain,
    logger: false,
    // No reverse look-up of each client: nothing here depends on its name.
    disableReverseLookup: true,
    authOptional: true,
    disabledCommands: options.tls === undefined ? ['AUTH', 'STARTTLS'] : ['AUTH'],
    hideSTARTTLS: options.tls === undefined,
    ...(options.tls === undefined ? {} : { key: options.tls.key, cert: options.tls.cert }),
    // RFC 3463 codes on every reply (`550 5.1.1 …`): the sending MTA's own DSN can say what happened.
    hideENHANCEDSTATUSCODES: false,
    size: maxBytes,
    rejectOversized: true,
    // One report per transaction, so each kept report has one recipient; a sender with
    // more gets 452 for the rest and sends them in another transaction (RFC 5321 §4.5.3.1.10).
    // Mail to receiving domains takes RFC 5321's minimum of 100 (§4.5.3.1.8).
    maxRecipients: receiving === undefined ? 1 : MAX_INBOUND_RECIPIENTS,
    maxClients: 100,
    socketTimeout: 60_000,
    closeTimeout: 1_000,
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const first = session.envelope.rcptTo[0]?.address;
      const report = isReport(address.address);
      // A report is alone in its transaction, and mail to receiving domains keeps to its own.
      if (first !== undefined && (report || isReport(first))) {
        callback(smtpError(452, '4.5.3 Too many recipients, send the rest in another transaction'));
        return;
      }
      if (report || receiving === undefined) {
        callback(report ? undefined : refuseUnknown(address.address));
        return;
      }
      receiving.verdict(address.address).then(
        (verdict) => callback(verdict === 'accept' ? undefined
          : verdict === 'refuse' ? smtpError(550, `5.7.1 <${address.address}>: the domain does not take mail for this address`)
          : refuseUnknown(address.address)),
        (error: unknown) => {
          log.error({ err: error, rcptTo: address.address }, 'could not look a receiving domain up');
          callback(smtpError(451, '4.3.0 Could not look the recipient up, try again later'));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // Past the limit the rest is drained unkept; smtp-server answers 552 (rejectOversized).
        if (size <= maxBytes) chunks.push(chunk);
      });
      stream.on('error', (error: Error) => callback(error));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback();
          return;
        }
        const mailFrom = session.envelope.mailFrom === false || session.envelope.mailFrom.address === '' ? null : session.envelope.mailFrom.address;
        const rcptTo = session.envelope.rcptTo[0]?.address ?? '';
        if (receiving !== undefined && !isReport(rcptTo)) {
          const client = { ip: session.remoteAddress, helo: session.hostNameAppearsAs, mailFrom: mailFrom ?? '' };
          receiving.receive(client, session.envelope.rcptTo.map((r) => r.address), Buffer.concat(chunks)).then(
            (refusal) => callback(refusal === undefined ? undefined : smtpError(refusal.code, refusal.text)),
            (error: unknown) => {
              log.error({ err: error, rcptTo }, 'could not keep an email to a receiving domain');
              callback(smtpError(451, 'Could not keep the message, try again later'));
            },
          );
          return;
        }
        options.receive({ mailFrom, rcptTo }, Buffer.concat(chunks)).then(
          () => callback(),
          (error: unknown) => {
            if (error instanceof NoticeTooEarly) {
              log.info({ msgid: error.msgid, rcptTo }, 'delivery notice came before the message was recorded sent: refused for now');
              callback(smtpError(451, 'The message is still being sent, try again later'));
              return;
            }
            log.error({ err: error, rcptTo }, 'could not keep an inbound report');
            callback(smtpError(451, 'Could not keep the message, try again later'));
          },
        );
      });
    },
  });
  const port = await listenSmtp(server, options.port, options.host, log, 'inbound SMTP connection error');
  log.info({ port, host: options.host, bounceDomain: options.bounceDomain, starttls: options.tls !== undefined }, 'inbound SMTP listening');

  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The listener's `receive`: read the MIME, then keep it with its effects in one transaction. */
export function inboundReportReceiver(deps: InboundDeps, logger: Logger): InboundListenerOptions['receive'] {
  const log = logger.child({ component: 'inbound-smtp' });
  return async (envelope, raw) => {
    const reading = await readInboundReport(raw);
    // Kept as text: bytes that are not UTF-8 become U+FFFD, and NUL (which PostgreSQL text refuses) too.
    const recorded = await recordInboundReport(deps, envelope, raw.toString('utf8').replaceAll('\u0000', '\uFFFD'), reading);
    // Anyone can write one: info, not a warning; the counter tells a flood.
    if (recorded.forged !== undefined) log.info({ reportId: recorded.id, reason: recorded.forged, mailFrom: envelope.mailFrom, rcptTo: envelope.rcptTo }, 'forged inbound report kept, nothing applied');
  };
}

/** mailauth's resolver: the house's DNS servers (HERALD_DNS_SERVERS), bounded as domain verification's. */
export function houseResolver(deps: Pick<AppDeps, 'dnsServers'>): DNSResolver {
  const resolver = resolverFor(deps);
  return (name, type) => resolver.resolve(name, type) as Promise<string[][] | string[]>;
}

/** The listener as configured (HERALD_INBOUND_SMTP_*), or none when the port is unset or `off`. */
export async function startConfiguredInboundListener(
  config: Config, deps: Omit<InboundDeps, 'untaggedHorizonMs'> & AppDeps, logger: Logger,
): Promise<InboundListener | undefined> {
  if (config.inboundSmtpPort === undefined) return undefined;
  const tls = config.inboundSmtpTlsKey !== undefined && config.inboundSmtpTlsCert !== undefined
    ? { key: await readFile(config.inboundSmtpTlsKey), cert: await readFile(config.inboundSmtpTlsCert) }
    : undefined;
  if (tls !== undefined) deps.metrics.tlsCertificateLoaded('inbound-smtp', Date.parse(new X509Certificate(tls.cert).validTo));
  return startInboundListener({
    port: config.inboundSmtpPort, host: config.inboundSmtpHost, bounceDomain: deps.bounceDomain, logger, maxBytes: config.inboundEmailMaxBytes,
    ...(tls === undefined ? {} : { tls }),
    receiving: emailReceiver(deps, houseResolver(deps), deps.bounceDomain, logger),
    receive: inboundReportReceiver({ ...deps, untaggedHorizonMs: config.emailRetryHours * 3_600_000 }, logger),
  });
}
