import { accessSync, constants } from 'node:fs';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import leven from 'leven';
import { parseRelayUrl } from './channels/email/relay-url.ts';
import { parseAddress } from './domain/email-address.ts';
import { isRole, ROLES, type Role } from './domain/process-role.ts';
import { LIMITS, type RequestLimits } from './domain/request-limits.ts';

// Configuration comes from environment variables only. Each key is declared once
// here with its default and description; the README table is generated from the
// same list (`npm run herald -- config`), so documentation cannot drift.

/** The request limits (HERALD_MAX_*) are fields of their own, one per row of domain/request-limits.ts. */
export interface Config extends RequestLimits {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly databasePoolSize: number;
  readonly adminToken: string | undefined;
  readonly publicUrl: string;
  readonly trustProxy: boolean | number | string;
  readonly emailTransport: string;
  readonly smsTransport: string;
  readonly smsReassemblyTimeoutMs: number;
  readonly whatsappTransport: string;
  readonly bodyLimitBytes: number;
  readonly importBodyLimitBytes: number;
  readonly importMaxAttempts: number;
  readonly accountMaxContacts: number;
  readonly accountMaxUploadBytes: number;
  readonly accountMaxImports: number;
  readonly heavyReadTimeoutMs: number;
  readonly fetchAllowPrivate: boolean;
  readonly webhookTimeoutMs: number;
  readonly dnsServers: readonly string[];
  readonly bounceDomain: string | undefined;
  readonly heloName: string | undefined;
  readonly inboundSmtpPort: number | undefined;
  readonly inboundSmtpHost: string;
  readonly inboundSmtpTlsKey: string | undefined;
  readonly inboundSmtpTlsCert: string | undefined;
  readonly inboundEmailMaxBytes: number;
  readonly submissionPort: number | undefined;
  readonly submissionsPort: number | undefined;
  readonly submissionHost: string;
  readonly submissionPublicHost: string | undefined;
  readonly submissionTlsKey: string | undefined;
  readonly submissionTlsCert: string | undefined;
  readonly submissionMaxConnectionsPerAddress: number;
  readonly emailRetryHours: number;
  readonly trackedLinkDays: number;
  readonly simulatorStepMs: number;
  readonly whatsappAppSecret: string | undefined;
  readonly whatsappVerifyToken: string | undefined;
  readonly inboundMediaMaxBytes: number;
  readonly inboundPerSenderPerMinute: number;
  readonly redisUrl: string | undefined;
  readonly redisFailure: 'closed' | 'local';
  readonly redisPrefix: string;
  readonly logLevel: string;
  readonly role: Role;
  readonly outboxLeaseSeconds: number;
  readonly sessionIdleMinutes: number;
  readonly sessionRateLimitPerSecond: number;
  readonly sessionMaxHours: number;
  readonly invitationHours: number;
  readonly passwordResetMinutes: number;
  readonly authEmailFrom: { readonly email: string; readonly name: string } | undefined;
  readonly templateCacheBytes: number;
  readonly retentionDays: number;
  readonly logFormat: LogFormat;
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  readonly httpKeepAliveTimeoutMs: number;
}

interface Setting<K extends keyof Config> {
  readonly key: K;
  readonly env: string;
  readonly description: string;
  readonly default: string | undefined;
  /** `name`: the variable's, for the error that names it. */
  readonly parse: (raw: string, name: string) => Config[K];
  /** Masked by `herald config --check`: the whole value, or a URL's password. */
  readonly secret?: 'value' | 'url';
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const fail = (env: string, message: string): never => {
  throw new ConfigError(`${env}: ${message}`);
};

const integer = (min: number, max: number) => (raw: string, name: string): number => {
  if (!/^[0-9]+$/.test(raw)) fail(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) fail(name, `expected a number from ${min} to ${max}, got ${n}`);
  return n;
};

/** A listener's port: `off` (or unset) for none, `0` for a free one. */
const portOrOff = (raw: string, name: string): number | undefined => (raw === 'off' ? undefined : integer(0, 65535)(raw, name));

/** A transport setting: `capture`, a keyword, or a URL of one of the given schemes. */
const transport = (keywords: readonly string[], schemes: readonly string[]) => (raw: string, name: string): string => {
  if (raw === 'capture' || keywords.includes(raw)) return raw;
  let url: URL | undefined;
  try { url = new URL(raw); } catch { /* reported below */ }
  if (!url || !schemes.includes(url.protocol.slice(0, -1)) || url.hostname === '') {
    // The value may hold credentials: name the accepted forms, never echo it.
    fail(name, `expected ${['capture', ...keywords].map((k) => `"${k}"`).join(', ')} or a ${schemes.map((s) => `${s}://`).join(' / ')} URL`);
  }
  return raw;
};

/** The email transport: a relay URL is checked whole here (its options too), so a typo fails the start with the variable named. */
const relayTransport = (raw: string, name: string): string => {
  const value = transport(['mx'], ['smtp', 'smtps'])(raw, name);
  if (value === 'capture' || value === 'mx') return value;
  try {
    parseRelayUrl(value);
  } catch (error) {
    fail(name, error instanceof Error ? error.message : String(error));
  }
  return value;
};

const hostname = (raw: string, name: string): string =>
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i.test(raw) ? raw.toLowerCase() : fail(name, `expected a host name, got "${raw}"`);

/** JSON lines, or pino-pretty's lines for a terminal (src/logger.ts). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** An address to listen on: an IP, or a host name such as `localhost`. */
const listenAddress = (raw: string, name: string): string =>
  isIP(raw) !== 0 || /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(raw)
    ? raw
    : fail(name, `expected an IP address or a host name to listen on, got "${raw}"`);

/** A file the service must read at start (a TLS key, say): refused now rather than by a stack trace later. */
const readableFile = (raw: string, name: string): string => {
  try {
    accessSync(raw, constants.R_OK);
  } catch (error) {
    fail(name, `cannot read ${raw} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return raw;
};

// The example files' admin tokens (deploy/systemd/herald.env.example, docs/deployment.md,
// compose.yaml's comment): copied as they are, they would open the operator API to anyone who read them.
const PLACEHOLDER_TOKEN = /change-?me|<.*>|^x+$/i;

// proxy-addr's names for address ranges, which Fastify's trustProxy takes beside IPs and CIDRs.
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustedProxy(raw: string, name: string): boolean | number | string {
  if (raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^[0-9]+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!PROXY_RANGE_NAMES.includes(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry)) {
      fail(name, `expected false, true, a hop count or a comma-separated list of IPs and CIDRs, got "${entry}"`);
    }
  }
  if (entries.length === 0) fail(name, 'expected false, true, a hop count or a comma-separated list of IPs and CIDRs');
  return entries.join(',');
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const SETTINGS = [
  { key: 'port', env: 'HERALD_PORT', default: '8080', description: 'TCP port of the HTTP API.', parse: integer(0, 65535) },
  { key: 'host', env: 'HERALD_HOST', default: '0.0.0.0', description: 'Address the HTTP API listens on (`::` for all IPv6 and IPv4).', parse: listenAddress },
  {
    key: 'databaseUrl', env: 'HERALD_DATABASE_URL', default: 'sqlite:./data/herald.db', secret: 'url',
    description: '`sqlite:<path>` (embedded, the default; `sqlite::memory:` for a throw-away store) or `postgres://user:pass@host:5432/db` (`postgresql://` too; pg connection-string parameters such as `?sslmode=require` or `?options=-c%20search_path%3Dherald` apply). PostgreSQL lets several API and worker processes share one store.',
    parse: (raw: string, name: string) => {
      if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) return raw;
      let url: URL | undefined;
      try { url = new URL(raw); } catch { /* reported below */ }
      if (url && /^postgres(ql)?:$/.test(url.protocol) && raw.startsWith(`${url.protocol}//`)) return raw;
      // A database URL may hold a password: name the accepted forms, never echo it.
      return fail(name, 'expected sqlite:<path> or a postgres:// / postgresql:// URL');
    },
  },
  {
    key: 'databasePoolSize', env: 'HERALD_DATABASE_POOL_SIZE', default: '10',
    description: 'PostgreSQL connections per process (each process also opens one more to LISTEN for wake-ups). Keep the sum over all processes below the server\'s max_connections. Ignored by SQLite.',
    parse: integer(1, 1000),
  },
  {
    key: 'adminToken', env: 'HERALD_ADMIN_TOKEN', default: undefined, secret: 'value',
    description: 'Bearer token of the operator API (at least 16 characters; the example files\' placeholders are refused). Unset: one is generated on first start, stored hashed, and printed once.',
    parse: (raw: string, name: string) => {
      if (raw.length < 16) fail(name, 'must be at least 16 characters');
      if (PLACEHOLDER_TOKEN.test(raw)) fail(name, 'is the example file\'s placeholder; set a secret of your own (e.g. `openssl rand -base64 32`), or leave it unset to have one generated');
      return raw;
    },
  },
  {
    key: 'publicUrl', env: 'HERALD_PUBLIC_URL', default: undefined,
    description: 'URL clients reach the service at (used in Message-IDs and printed examples); an `https:` URL makes every answer carry `Strict-Transport-Security: max-age=31536000`. Default: `http://localhost:<port>`.',
    parse: (raw: string, name: string) => {
      let url: URL | undefined;
      try { url = new URL(raw); } catch { /* reported below */ }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) fail(name, `expected an http(s) URL, got "${raw}"`);
      return raw.replace(/\/+$/, '');
    },
  },
  {
    key: 'trustProxy', env: 'HERALD_TRUST_PROXY', default: 'false',
    description: 'Which proxies may set X-Forwarded-For: `false` (none), `true` (any: only behind a proxy you control), a hop count (`1`), or a comma-separated list of IPs/CIDRs (`10.0.0.0/8,::1`).',
    parse: trustedProxy,
  },
  {
    key: 'emailTransport', env: 'HERALD_EMAIL_TRANSPORT', default: 'capture', secret: 'url',
    description: 'Email transport: `capture` (render and store the MIME message; nothing leaves the machine), `smtp://user:pass@host:port` or `smtps://…` (relay through a smart host, pooled; delivery is confirmed by the relay\'s delivery notices, or by its acceptance with `?delivered=accepted`), or `mx` (deliver directly to each recipient domain\'s MX hosts).',
    parse: relayTransport,
  },
  {
    key: 'smsTransport', env: 'HERALD_SMS_TRANSPORT', default: 'capture', secret: 'url',
    description: 'SMS transport: `capture` (store the text and its segments) or `smpp://system_id:password@host:2775` / `smpps://…` (SMPP v3.4 transceiver; port 2775, 3550 for smpps; `?window=10&throughput=100&from=Herald` set the outstanding-submit window, submits per second (0: no cap) and the sender).',
    parse: transport([], ['smpp', 'smpps']),
  },
  {
    key: 'smsReassemblyTimeoutMs', env: 'HERALD_SMS_REASSEMBLY_TIMEOUT_MS', default: '300000',
    description: 'How long the parts of a concatenated inbound SMS wait for the rest, in milliseconds from the first part: then the message is delivered with the parts it has, marked incomplete (docs/inbound-sms.md).',
    parse: integer(1000, 86_400_000),
  },
  {
    key: 'whatsappTransport', env: 'HERALD_WHATSAPP_TRANSPORT', default: 'capture',
    description: 'WhatsApp transport: `capture` (store the Cloud API request body) or the Cloud API base URL, e.g. `https://graph.facebook.com/v23.0`.',
    parse: transport([], ['http', 'https']),
  },
  { key: 'bodyLimitBytes', env: 'HERALD_BODY_LIMIT', default: '10485760', description: 'Largest request body in bytes (data-URI attachments count); larger requests get 413.', parse: integer(1024, 1024 * 1024 * 1024) },
  {
    key: 'importBodyLimitBytes', env: 'HERALD_IMPORT_BODY_LIMIT', default: '268435456',
    description: 'Largest contact import body in bytes (`POST /v1/contacts/imports`, stored in the database as it arrives and parsed in the background); larger uploads get 413.',
    parse: integer(1024, 4 * 1024 * 1024 * 1024),
  },
  {
    key: 'importMaxAttempts', env: 'HERALD_IMPORT_MAX_ATTEMPTS', default: '3',
    description: 'Times a contact import is taken up in a row without committing a batch (its reading stopped the process or failed) before it ends `failed` and is logged and counted as quarantined (`herald_jobs_quarantined_total`).',
    parse: integer(1, 100),
  },
  {
    key: 'accountMaxContacts', env: 'HERALD_ACCOUNT_MAX_CONTACTS', default: '5000000',
    description: 'Most contacts one account keeps: an import ends `failed` at the batch that would pass it (403 `Account quota exceeded` in its failure), and `POST /v1/contacts` that would add one past it is refused 403 `Account quota exceeded`.',
    parse: integer(1, 1_000_000_000),
  },
  {
    key: 'accountMaxUploadBytes', env: 'HERALD_ACCOUNT_MAX_UPLOAD_BYTES', default: '1073741824',
    description: 'Most bytes of contact import bodies one account has stored at once (imports receiving or running); an upload past it gets 403 `Account quota exceeded`.',
    parse: integer(1024, 64 * 1024 * 1024 * 1024),
  },
  {
    key: 'accountMaxImports', env: 'HERALD_ACCOUNT_MAX_IMPORTS', default: '3',
    description: 'Most contact imports one account has receiving or running at once; another upload gets 403 `Account quota exceeded`.',
    parse: integer(1, 1000),
  },
  {
    key: 'heavyReadTimeoutMs', env: 'HERALD_HEAVY_READ_TIMEOUT_MS', default: '5000',
    description: 'Longest time a segment count, a campaign quote, or one slice of a CSV export may read the store, in milliseconds; past it the request gets 503 (an export past its first slice is cut short: docs/campaigns.md) (PostgreSQL: statement_timeout; SQLite: read in slices between which the event loop runs, so no slice holds it past 50 ms).',
    parse: integer(100, 600_000),
  },
  {
    key: 'fetchAllowPrivate', env: 'HERALD_FETCH_ALLOW_PRIVATE', default: 'false',
    description: 'Let outbound requests (URL attachments, webhook deliveries, the WhatsApp media URLs Meta gives) reach private, loopback and link-local addresses: `true` or `false`. Keep `false` unless every such address is yours.',
    parse: (raw: string, name: string) => (raw === 'true' ? true : raw === 'false' ? false : fail(name, `expected true or false, got "${raw}"`)),
  },
  {
    key: 'dnsServers', env: 'HERALD_DNS_SERVERS', default: undefined,
    description: 'Comma-separated DNS servers (`ip` or `ip:port`) for MX look-ups and domain verification. Default: the system resolver.',
    parse: (raw: string, name: string) => {
      const servers = raw.split(',').map((s) => s.trim()).filter(Boolean);
      for (const server of servers) {
        // Bare v4 or v6, `v4:port`, or `[v6]:port`: the forms Resolver#setServers takes.
        const host = isIP(server) !== 0 ? server : (/^\[(.+)\](?::\d{1,5})?$/.exec(server)?.[1] ?? server.replace(/:\d{1,5}$/, ''));
        if (isIP(host) === 0) fail(name, `expected IP addresses (ip, ip:port or [ipv6]:port), got "${server}"`);
      }
      return servers;
    },
  },
  {
    key: 'bounceDomain', env: 'HERALD_BOUNCE_DOMAIN', default: undefined,
    description: 'Domain of the per-message VERP envelope senders (`b+<msgid>-<tag>@<domain>`, the tag an HMAC only herald can write: docs/bounces.md); its MX should point at herald. Default: the host of HERALD_PUBLIC_URL.',
    parse: hostname,
  },
  {
    key: 'heloName', env: 'HERALD_HELO_NAME', default: undefined,
    description: 'Name herald gives in EHLO when delivering directly to MX hosts. Default: the bounce domain.',
    parse: hostname,
  },
  {
    key: 'inboundSmtpPort', env: 'HERALD_INBOUND_SMTP_PORT', default: undefined,
    description: 'TCP port of the inbound SMTP listener that takes bounces (DSNs) and complaints (ARF) for the bounce domain, e.g. `2525` behind a 25 → 2525 forward; `0` picks a free port. Unset or `off`: no listener (async bounces and complaints are not received). See docs/bounces.md.',
    parse: portOrOff,
  },
  { key: 'inboundSmtpHost', env: 'HERALD_INBOUND_SMTP_HOST', default: '0.0.0.0', description: 'Address the inbound SMTP listener binds (`::` for all IPv6 and IPv4).', parse: listenAddress },
  {
    key: 'inboundSmtpTlsKey', env: 'HERALD_INBOUND_SMTP_TLS_KEY', default: undefined,
    description: 'Path of a PEM private key: with HERALD_INBOUND_SMTP_TLS_CERT, the inbound SMTP listener offers STARTTLS. Unset: plain SMTP only.',
    parse: readableFile,
  },
  {
    key: 'inboundSmtpTlsCert', env: 'HERALD_INBOUND_SMTP_TLS_CERT', default: undefined,
    description: 'Path of the PEM certificate (chain) for the inbound SMTP listener\'s STARTTLS; its name should be the bounce domain\'s MX host.',
    parse: readableFile,
  },
  {
    key: 'inboundEmailMaxBytes', env: 'HERALD_INBOUND_EMAIL_MAX_BYTES', default: String(25 * 1024 * 1024),
    description: 'Largest message the inbound SMTP listener takes (announced as SIZE; larger ones get 552 5.3.4): mail to receiving domains, bounces and complaints. See docs/inbound-email.md.',
    parse: integer(64 * 1024, 1024 * 1024 * 1024),
  },
  {
    key: 'submissionPort', env: 'HERALD_SUBMISSION_PORT', default: undefined,
    description: 'TCP port of the SMTP submission server (RFC 6409; STARTTLS when a certificate is set), e.g. `587`; `0` picks a free port (logged). Unset or `off`: none. See docs/smtp-submission.md.',
    parse: portOrOff,
  },
  {
    key: 'submissionsPort', env: 'HERALD_SUBMISSIONS_PORT', default: undefined,
    description: 'TCP port of SMTP submission with implicit TLS (RFC 8314), e.g. `465`; needs HERALD_SUBMISSION_TLS_KEY and _CERT. Unset or `off`: none.',
    parse: portOrOff,
  },
  { key: 'submissionHost', env: 'HERALD_SUBMISSION_HOST', default: '0.0.0.0', description: 'Address the SMTP submission ports bind (`::` for all IPv6 and IPv4).', parse: listenAddress },
  {
    key: 'submissionPublicHost', env: 'HERALD_SUBMISSION_PUBLIC_HOST', default: undefined,
    description: 'Host name applications put in their SMTP settings (shown on the web application\'s settings page; it should match the certificate). Default: the host of HERALD_PUBLIC_URL.',
    parse: hostname,
  },
  {
    key: 'submissionTlsKey', env: 'HERALD_SUBMISSION_TLS_KEY', default: undefined,
    description: 'Path of a PEM private key: with HERALD_SUBMISSION_TLS_CERT, submission offers STARTTLS (and implicit TLS on HERALD_SUBMISSIONS_PORT); both files are read again when they change or on SIGHUP. Unset: AUTH is offered to loopback clients only.',
    parse: readableFile,
  },
  {
    key: 'submissionTlsCert', env: 'HERALD_SUBMISSION_TLS_CERT', default: undefined,
    description: 'Path of the PEM certificate (chain) of the SMTP submission server; its name should be HERALD_SUBMISSION_PUBLIC_HOST.',
    parse: readableFile,
  },
  {
    key: 'submissionMaxConnectionsPerAddress', env: 'HERALD_SUBMISSION_MAX_CONNECTIONS_PER_ADDRESS', default: '50',
    description: 'Open SMTP submission connections one client address may hold; the next is answered `421 4.7.0` and closed.',
    parse: integer(1, 100_000),
  },
  {
    key: 'webhookTimeoutMs', env: 'HERALD_WEBHOOK_TIMEOUT_MS', default: '10000',
    description: 'Time a webhook receiver has to answer one delivery attempt (connect, send, status), in milliseconds; past it the attempt fails and is retried on the schedule.',
    parse: integer(100, 120_000),
  },
  {
    key: 'simulatorStepMs', env: 'HERALD_SIMULATOR_STEP_MS', default: '2000',
    description: 'The simulator recipients\' delay (docs/sandbox.md): from an accepted attempt to each later report (delivered, bounced, opened, …), and a deferred attempt\'s retry.',
    parse: integer(0, 600_000),
  },
  { key: 'emailRetryHours', env: 'HERALD_EMAIL_RETRY_HOURS', default: '72', description: 'How long an email is retried after transient failures before it fails.', parse: integer(1, 24 * 30) },
  {
    key: 'trackedLinkDays', env: 'HERALD_TRACKED_LINK_DAYS', default: '90',
    description: 'How long a tracked link (`/t/c/…`) redirects after its message was composed; later it shows "This link is not valid". Checked when the link is followed, so lowering it also shortens links already sent (docs/tracking.md).',
    parse: integer(1, 730),
  },
  {
    key: 'whatsappAppSecret', env: 'HERALD_WHATSAPP_APP_SECRET', default: undefined, secret: 'value',
    description: 'Meta app secret: inbound Cloud API webhooks must carry a valid `X-Hub-Signature-256` made with it. Unset: the inbound webhook answers 503.',
    parse: (raw: string) => raw,
  },
  {
    key: 'whatsappVerifyToken', env: 'HERALD_WHATSAPP_VERIFY_TOKEN', default: undefined, secret: 'value',
    description: 'The `hub.verify_token` Meta sends when the inbound webhook is registered.',
    parse: (raw: string) => raw,
  },
  {
    key: 'inboundMediaMaxBytes', env: 'HERALD_INBOUND_MEDIA_MAX_BYTES', default: '16777216',
    description: 'Largest WhatsApp media file (image, document, audio, video, sticker) a user sends that herald fetches from Meta and keeps, in bytes; a larger one is not fetched and its attachment ends `failed` (docs/inbound-whatsapp.md).',
    parse: integer(1024, 1024 * 1024 * 1024),
  },
  {
    key: 'inboundPerSenderPerMinute', env: 'HERALD_INBOUND_PER_SENDER_PER_MINUTE', default: '60',
    description: 'Most messages one person (a number, an address) may send herald a minute on one channel, per process; past it the SMSC gets ESME_RTHROTTLED, an SMTP client 451, Meta a 503, and each sends again later (docs/inbound.md). 0: no bound.',
    parse: integer(0, 1_000_000),
  },
  {
    key: 'redisUrl', env: 'HERALD_REDIS_URL', default: undefined, secret: 'url',
    description: '`redis://[:password@]host:6379[/db]` or `rediss://…` (TLS): account rate limits and SMPP throughput caps are shared by every herald process using it. Unset: each process counts on its own.',
    parse: (raw: string, name: string) => {
      let url: URL | undefined;
      try { url = new URL(raw); } catch { /* reported below */ }
      // The value may hold a password: name the accepted forms, never echo it.
      if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') fail(name, 'expected a redis:// or rediss:// URL');
      return raw;
    },
  },
  {
    key: 'redisFailure', env: 'HERALD_REDIS_FAILURE', default: 'local',
    description: 'While Redis cannot be reached: `local` (each process enforces the limits on its own, one warning per outage) or `closed` (API requests are refused with 503; SMS submits are deferred and retried later).',
    parse: (raw: string, name: string) => (raw === 'local' || raw === 'closed' ? raw : fail(name, `expected local or closed, got "${raw}"`)),
  },
  {
    key: 'redisPrefix', env: 'HERALD_REDIS_PREFIX', default: 'herald:',
    description: 'Prefix of every Redis key herald writes (separate installations sharing one Redis; ACL key patterns).',
    parse: (raw: string, name: string) => (/^[A-Za-z0-9:_.-]{1,64}$/.test(raw) ? raw : fail(name, 'expected up to 64 letters, digits, ":", "_", "." or "-"')),
  },
  {
    key: 'outboxLeaseSeconds', env: 'HERALD_OUTBOX_LEASE_SECONDS', default: '300',
    description: 'How long a worker holds the messages it claimed; a worker that dies holding them has them taken over by another about 10 s after its heartbeat stops, and after this at the latest. Keep it above the slowest delivery attempt (the SMTP time-outs: 30 s to connect, 30 s for the greeting, 120 s of socket silence).',
    parse: integer(5, 86_400),
  },
  // Request limits: one setting per row of domain/request-limits.ts (README "Limits"), and the template cache.
  ...LIMITS.map((row) => ({
    key: row.key, env: row.env, default: String(row.default),
    description: `${row.limit}, in ${row.unit}; past it a request is refused (its answer: README "Limits").`,
    parse: integer(row.min, row.max),
  })),
  {
    key: 'templateCacheBytes', env: 'HERALD_TEMPLATE_CACHE_BYTES', default: String(32 * 1024 * 1024),
    description: 'Memory the compiled email templates may keep, in bytes (an estimate per template: its length and tags); the least recently used go first, and a template that is refused is never kept.',
    parse: integer(0, 4 * 1024 * 1024 * 1024),
  },
  {
    key: 'retentionDays', env: 'HERALD_RETENTION_DAYS', default: '0',
    description: 'Days a message keeps its content: after them its body, captured MIME, the details of its events and its finished webhook deliveries are purged, in small batches (README "Retention"); statuses, event counts, the ledger, suppressions and certificates stay. 0 keeps everything.',
    parse: integer(0, 36_500),
  },
  {
    key: 'sessionIdleMinutes', env: 'HERALD_SESSION_IDLE_MINUTES', default: '60',
    description: 'A web application (or operator console) session ends after this many minutes without a request.',
    parse: integer(1, 7 * 24 * 60),
  },
  {
    key: 'sessionRateLimitPerSecond', env: 'HERALD_SESSION_RATE_LIMIT', default: '20',
    description: 'Requests per second a signed-in user of the web application may make (all their sessions together), in place of the account\'s API rate limit, which is for keys: a page asks several things at once.',
    parse: integer(1, 10_000),
  },
  {
    key: 'sessionMaxHours', env: 'HERALD_SESSION_MAX_HOURS', default: '12',
    description: 'A session ends this many hours after sign-in, however active; then the user signs in again.',
    parse: integer(1, 30 * 24),
  },
  {
    key: 'invitationHours', env: 'HERALD_INVITATION_HOURS', default: '72',
    description: 'How long an invitation link works (it works once).',
    parse: integer(1, 30 * 24),
  },
  {
    key: 'passwordResetMinutes', env: 'HERALD_PASSWORD_RESET_MINUTES', default: '60',
    description: 'How long a password-reset link works (it works once).',
    parse: integer(5, 24 * 60),
  },
  {
    key: 'authEmailFrom', env: 'HERALD_AUTH_EMAIL_FROM', default: undefined,
    description: 'Sender of the invitation and password-reset emails, `Name <address>` or `address`; they go out through herald\'s own email transport. Unset: herald sends none (invitation links are still shown to the inviter; password reset by email is off).',
    parse: (raw: string, name: string) => {
      const match = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(raw);
      const email = parseAddress(match?.[2] ?? raw.trim());
      if (email === null) return fail(name, `expected "Name <address>" or an address, got "${raw}"`);
      return { email, name: (match?.[1] ?? '').replace(/^"(.*)"$/, '$1') || 'herald' };
    },
  },
  {
    key: 'role', env: 'HERALD_ROLE', default: 'all',
    description: 'What this process runs: `all` (one machine), `api` (HTTP API only) or `worker` (delivery, webhooks, inbound SMTP; /healthz and /readyz only on HTTP). `herald serve --role` overrides it.',
    parse: (raw: string, name: string) => (isRole(raw) ? raw : fail(name, `expected one of ${ROLES.join(', ')}`)),
  },
  {
    key: 'logLevel', env: 'HERALD_LOG_LEVEL', default: 'info', description: `pino log level: ${LOG_LEVELS.join(', ')}.`,
    parse: (raw: string, name: string) => (LOG_LEVELS.includes(raw) ? raw : fail(name, `expected one of ${LOG_LEVELS.join(', ')}`)),
  },
  // Operations: logs, metrics, HTTP time-outs (docs/operations.md).
  {
    key: 'logFormat', env: 'HERALD_LOG_FORMAT', default: 'json',
    description: 'Log lines as `json` (one object a line, for log storage) or `pretty` (pino-pretty: readable lines for a terminal).',
    parse: (raw: string, name: string) => ((LOG_FORMATS as readonly string[]).includes(raw) ? (raw as LogFormat) : fail(name, `expected one of ${LOG_FORMATS.join(', ')}, got "${raw}"`)),
  },
  {
    key: 'metricsPort', env: 'HERALD_METRICS_PORT', default: undefined,
    description: 'TCP port of the Prometheus metrics (`GET /metrics`), a listener of its own so the API never shows them; `0` picks a free port. Unset or `off`: no metrics listener. Let only your scraper reach it (docs/operations.md).',
    parse: portOrOff,
  },
  {
    key: 'metricsHost', env: 'HERALD_METRICS_HOST', default: '127.0.0.1',
    description: 'Address the metrics listener binds: loopback by default; `0.0.0.0` (or a private interface) when the scraper runs on another machine or container.',
    parse: listenAddress,
  },
  {
    key: 'httpHeadersTimeoutMs', env: 'HERALD_HTTP_HEADERS_TIMEOUT_MS', default: '10000',
    description: 'Time a client has to send a request\'s line and headers, in milliseconds; past it herald answers 408 `{"message":"Request timed out"}` and closes the connection.',
    parse: integer(100, 600_000),
  },
  {
    key: 'httpRequestTimeoutMs', env: 'HERALD_HTTP_REQUEST_TIMEOUT_MS', default: '120000',
    description: 'Time a client has to send a whole request, headers and body, in milliseconds (at least the headers time-out); past it herald answers 408 and closes the connection. It bounds contact import uploads too: raise it for large imports over slow links.',
    parse: integer(100, 3_600_000),
  },
  {
    key: 'httpKeepAliveTimeoutMs', env: 'HERALD_HTTP_KEEP_ALIVE_TIMEOUT_MS', default: '5000',
    description: 'How long an idle keep-alive connection stays open between requests, in milliseconds. Behind a load balancer that reuses connections, set it above the balancer\'s idle time-out (e.g. `65000` behind an AWS ALB\'s 60 s).',
    parse: integer(100, 600_000),
  },
] as const satisfies readonly Setting<keyof Config>[];

// Variables the test suite sets for itself (test/run-postgres.ts): not settings, never warned about.
const TEST_VARIABLES = /^HERALD_TEST_/;

/**
 * One warning per HERALD_* variable that is no setting (a misspelt HERALD_PORTT would
 * otherwise be ignored in silence), with the setting it most resembles when one is close.
 */
export function unknownSettingWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = SETTINGS.map((s) => s.env as string);
  return Object.keys(env)
    .filter((name) => name.startsWith('HERALD_') && !known.includes(name) && !TEST_VARIABLES.test(name))
    .sort()
    .map((name) => {
      const [closest] = known.map((k) => ({ k, d: leven(name, k) })).sort((a, b) => a.d - b.d);
      const near = closest !== undefined && closest.d <= Math.max(2, Math.floor(name.length / 6));
      return `${name} is not a herald setting and is ignored${near ? `; did you mean ${closest.k}?` : ''}`;
    });
}

/** Reads and validates the whole configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    const raw = env[setting.env] ?? setting.default;
    values[setting.key] = raw === undefined || raw === '' ? undefined : (setting.parse as (r: string, name: string) => unknown)(raw, setting.env);
  }
  values.publicUrl ??= `http://localhost:${values.port as number}`;
  values.dnsServers ??= [];
  if ((values.inboundSmtpTlsKey === undefined) !== (values.inboundSmtpTlsCert === undefined)) {
    fail('HERALD_INBOUND_SMTP_TLS_CERT', 'set it together with HERALD_INBOUND_SMTP_TLS_KEY, or neither');
  }
  if ((values.submissionTlsKey === undefined) !== (values.submissionTlsCert === undefined)) {
    fail('HERALD_SUBMISSION_TLS_CERT', 'set it together with HERALD_SUBMISSION_TLS_KEY, or neither');
  }
  if (values.submissionsPort !== undefined && values.submissionTlsKey === undefined) {
    fail('HERALD_SUBMISSIONS_PORT', 'implicit TLS needs HERALD_SUBMISSION_TLS_KEY and HERALD_SUBMISSION_TLS_CERT');
  }
  if ((values.httpRequestTimeoutMs as number) < (values.httpHeadersTimeoutMs as number)) {
    fail('HERALD_HTTP_REQUEST_TIMEOUT_MS', `must be at least HERALD_HTTP_HEADERS_TIMEOUT_MS (${values.httpHeadersTimeoutMs as number})`);
  }
  return Object.freeze(values) as unknown as Config;
}
