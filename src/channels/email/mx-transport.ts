import type { ConnectionOptions } from 'node:tls';
import { domainToASCII } from 'node:url';
import nodemailer, { type Mail, type SendMailOptions, type SMTPPoolOptions, type SMTPPoolSentMessageInfo } from 'nodemailer';
import type { EmailPayload } from '../../domain/outbound.ts';
import type { Outcome, Transport } from '../channel.ts';
import { prepareEmail, type AttachmentResolver, type ComposeSettings } from './compose.ts';
import type { DkimKeyLookup } from './dkim.ts';
import { CONTENT_ACCESS } from './mime.ts';
import { classifySmtpError, smtpErrorOutcome, smtpSentOutcome } from './smtp-outcome.ts';
import { SMTP_TIMEOUTS, type SmtpTimeouts } from './smtp-transport.ts';
import { certifiedMessage, sendCertified, withEvidence, type CertifiedMessage } from './transcript.ts';

/** The look-ups MX delivery needs; node:dns/promises' Resolver (set to HERALD_DNS_SERVERS) is one. */
export interface MxResolver {
  resolveMx(hostname: string): Promise<{ exchange: string; priority: number }[]>;
  resolve4(hostname: string): Promise<string[]>;
  resolve6(hostname: string): Promise<string[]>;
}

export interface MxTransportOptions extends ComposeSettings {
  readonly resolver: MxResolver;
  /** Required here: real mail goes out signed whenever the sender domain has a key. */
  readonly dkim: DkimKeyLookup;
  /** Name given in EHLO (HERALD_HELO_NAME): receivers check it against our address's PTR. */
  readonly heloName: string;
  readonly resolveAttachments: AttachmentResolver;
  /** Port of every MX host; default 25 (tests point it at their SMTP peer). */
  readonly port?: number;
  /**
   * tls.connect options for STARTTLS. Default `{ rejectUnauthorized: false }`:
   * opportunistic TLS (RFC 7435) encrypts against passive listening but cannot
   * authenticate an MX host without MTA-STS or DANE, and refusing a self-signed
   * certificate would only push the message back to plain text elsewhere.
   */
  readonly tls?: ConnectionOptions;
  /** Connections to one destination host at once; default 2. */
  readonly maxConnectionsPerHost?: number;
  /** Destination pools kept; past it the least recently used idle one is closed. Default 500. */
  readonly maxPools?: number;
  /** Overrides of SMTP_TIMEOUTS (ms). */
  readonly timeouts?: Partial<SmtpTimeouts>;
  /** Order of MX hosts of equal preference (RFC 5321 §5.1 asks to spread them); default Math.random. */
  readonly random?: () => number;
}

type MxTransport = Transport<EmailPayload> & { close(): Promise<void> };

interface Destination {
  readonly exchange: string;
  readonly address: string;
}

interface Pool {
  readonly mailer: Mail<SMTPPoolSentMessageInfo, SMTPPoolOptions>;
  inFlight: number;
}

// An idle connection to an MX host is kept this long for the next message to the same
// host (a burst to one domain), then closed: holding connections to thousands of
// receivers would cost them more than the handshakes it saves us.
const POOL_IDLE_MS = 30_000;

/**
 * Delivers directly to each recipient domain's MX hosts (RFC 5321 §5.1): MX records
 * lowest preference first, the domain's own A/AAAA as the implicit MX when it has none,
 * a null MX (RFC 7505) as a permanent failure. Hosts and their addresses are tried in
 * order while the failure is about reaching them (no connection, a refused greeting or
 * session); the first host that answers the transaction decides. Acceptance by the MX
 * is `delivered`. Addresses are not screened: MX hosts on private addresses are normal
 * inside an organisation, and the operator chose the resolver.
 */
export function mxTransport(options: MxTransportOptions): MxTransport {
  const port = options.port ?? 25;
  const random = options.random ?? Math.random;
  const maxPools = options.maxPools ?? 500;
  const pools = new Map<string, Pool>();

  const connectionTo = (destination: Destination) => ({
    host: destination.address,
    port,
    servername: destination.exchange,
    name: options.heloName,
    secure: false,
    opportunisticTLS: true,
    tls: options.tls ?? { rejectUnauthorized: false },
    ...SMTP_TIMEOUTS,
    ...options.timeouts,
    ...CONTENT_ACCESS,
  });

  const createPool = (destination: Destination): Pool['mailer'] => nodemailer.createTransport({
    pool: true,
    ...connectionTo(destination),
    maxConnections: options.maxConnectionsPerHost ?? 2,
    maxMessages: 100,
    idleTimeout: POOL_IDLE_MS,
    logger: false,
  });

  /** One pool per host and address, most recently used last in the map. */
  const poolFor = (destination: Destination): Pool => {
    const key = `${destination.exchange}[${destination.address}]:${port}`;
    let pool = pools.get(key);
    if (pool === undefined) {
      const mailer = createPool(destination);
      mailer.on('error', () => {});
      pool = { mailer, inFlight: 0 };
      evictIdle();
    } else {
      pools.delete(key);
    }
    pools.set(key, pool);
    return pool;
  };

  const evictIdle = (): void => {
    for (const [key, pool] of pools) {
      if (pools.size < maxPools) return;
      if (pool.inFlight > 0) continue;
      pool.mailer.close();
      pools.delete(key);
    }
  };

  /** Over the destination's pool, or for a certified message over a recorded session of its own. */
  const sendTo = async (destination: Destination, mail: SendMailOptions, certified: CertifiedMessage | undefined, signal: AbortSignal) => {
    if (certified !== undefined) {
      return sendCertified({ options: connectionTo(destination), delivery: 'mx', host: destination.exchange, clock: options.clock ?? Date.now }, certified, signal);
    }
    const pool = poolFor(destination);
    pool.inFlight += 1;
    try {
      return { info: await pool.mailer.sendMail({ ...mail, signal }), evidence: undefined };
    } finally {
      pool.inFlight -= 1;
    }
  };

  const attempt = async (
    destination: Destination, mail: SendMailOptions, certified: CertifiedMessage | undefined, signal: AbortSignal,
  ): Promise<{ outcome: Outcome; tryNext: boolean }> => {
    const peer = `${destination.exchange}[${destination.address}]:${port}`;
    try {
      const { info, evidence } = await sendTo(destination, mail, certified, signal);
      const outcome = smtpSentOutcome(info, peer, true);
      return { outcome: evidence === undefined ? outcome : withEvidence(outcome, evidence), tryNext: false };
    } catch (error) {
      const { verdict, stage } = classifySmtpError(error);
      // Not reached, or refused before the transaction began: the next host may take it.
      const unreachable = verdict.kind === 'deferred' && (stage === 'no reply' || stage === 'session') && !signal.aborted;
      return { outcome: smtpErrorOutcome(error, peer), tryNext: unreachable };
    }
  };

  return {
    name: 'mx',
    async send(message, signal): Promise<Outcome> {
      const domain = recipientDomain(message.recipient);
      if (domain === '') return { kind: 'failed', peer: 'mx', response: `no deliverable domain in ${message.recipient}`, leftTheHouse: false };
      // DNS first: a domain that cannot receive mail fails before attachments are fetched.
      const hosts = await mailHosts(options.resolver, domain, random);
      if (hosts.kind !== 'hosts') return hosts.outcome;
      const prepared = await prepareEmail(message, signal, options, domain);
      if (!prepared.ok) return prepared.outcome;
      // Rendered once: every host tried gets the same bytes, the ones the receipt hashes.
      const certified = message.payload.certified === true ? await certifiedMessage(message, prepared.mail) : undefined;

      let attempted: Outcome | undefined;
      let lookupFailure: string | undefined;
      let noAddress: string | undefined;
      for (const exchange of hosts.exchanges) {
        const addresses = await hostAddresses(options.resolver, exchange);
        if (addresses.kind === 'lookup failed') lookupFailure = addresses.reason;
        if (addresses.kind === 'no address') noAddress = addresses.reason;
        if (addresses.kind !== 'addresses') continue;
        for (const address of addresses.list) {
          const { outcome, tryNext } = await attempt({ exchange, address }, prepared.mail, certified, signal);
          if (!tryNext) return outcome;
          attempted = outcome;
        }
      }
      // The most telling last word: a host that was tried, then DNS trouble, then no address.
      if (attempted !== undefined) return attempted;
      if (lookupFailure !== undefined) return { kind: 'deferred', peer: domain, response: lookupFailure };
      // No MX and no address: the domain cannot receive mail. MX hosts without addresses
      // are more likely a zone in the middle of a change: retried until the horizon.
      return hosts.implicit
        ? { kind: 'failed', peer: domain, response: `${domain} has no MX and no address`, leftTheHouse: false }
        : { kind: 'deferred', peer: domain, response: noAddress ?? `no mail host for ${domain}` };
    },
    async close() {
      for (const pool of pools.values()) pool.mailer.close();
      pools.clear();
    },
  };
}

/** The A-label form of the recipient's domain, '' when it has none. */
function recipientDomain(recipient: string): string {
  const at = recipient.lastIndexOf('@');
  if (at < 0) return '';
  return domainToASCII(recipient.slice(at + 1).replace(/\.$/, '').toLowerCase());
}

const NO_SUCH_NAME = new Set(['ENOTFOUND']);
const NO_RECORDS = new Set(['ENODATA']);

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : 'EUNKNOWN';
}

type MailHosts =
  | { kind: 'hosts'; exchanges: string[]; implicit: boolean }
  | { kind: 'none'; outcome: Outcome };

/**
 * The hosts to try for a domain, in order. No MX records: the domain itself (RFC 5321
 * §5.1). A null MX `0 .`: the domain takes no mail (RFC 7505). A domain that does not
 * exist: permanent, nobody saw the message (refunded). Anything else from DNS
 * (SERVFAIL, time-outs) may pass: deferred.
 */
async function mailHosts(resolver: MxResolver, domain: string, random: () => number): Promise<MailHosts> {
  let records: { exchange: string; priority: number }[];
  try {
    records = await resolver.resolveMx(domain);
  } catch (error) {
    const code = codeOf(error);
    if (NO_RECORDS.has(code)) return { kind: 'hosts', exchanges: [domain], implicit: true };
    if (NO_SUCH_NAME.has(code)) {
      return { kind: 'none', outcome: { kind: 'failed', peer: domain, response: `${domain} does not exist (${code})`, leftTheHouse: false } };
    }
    return { kind: 'none', outcome: { kind: 'deferred', peer: domain, response: `MX look-up of ${domain} failed (${code})` } };
  }
  const real = records.filter((r) => r.exchange !== '' && r.exchange !== '.');
  if (records.length > 0 && real.length === 0) {
    return { kind: 'none', outcome: { kind: 'failed', peer: domain, response: `${domain} accepts no mail (null MX, RFC 7505)`, leftTheHouse: false } };
  }
  if (real.length === 0) return { kind: 'hosts', exchanges: [domain], implicit: true };
  const ordered = real
    .map((r) => ({ exchange: r.exchange.replace(/\.$/, '').toLowerCase(), priority: r.priority, tie: random() }))
    .sort((a, b) => a.priority - b.priority || a.tie - b.tie);
  return { kind: 'hosts', exchanges: [...new Set(ordered.map((r) => r.exchange))], implicit: false };
}

type HostAddresses =
  | { kind: 'addresses'; list: string[] }
  | { kind: 'lookup failed' | 'no address'; reason: string };

/**
 * A host's IPv4 then IPv6 addresses (IPv4 first: many senders have no IPv6 route, and
 * receivers judge IPv6 senders more strictly). A failed look-up may pass; a name
 * without addresses is a dead end.
 */
async function hostAddresses(resolver: MxResolver, host: string): Promise<HostAddresses> {
  const lookups = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const list: string[] = [];
  const failures: string[] = [];
  for (const result of lookups) {
    if (result.status === 'fulfilled') {
      list.push(...result.value);
      continue;
    }
    const code = codeOf(result.reason);
    if (!NO_SUCH_NAME.has(code) && !NO_RECORDS.has(code)) failures.push(code);
  }
  if (list.length > 0) return { kind: 'addresses', list };
  if (failures.length > 0) return { kind: 'lookup failed', reason: `address look-up of ${host} failed (${failures.join(', ')})` };
  return { kind: 'no address', reason: `${host} has no A or AAAA record` };
}
