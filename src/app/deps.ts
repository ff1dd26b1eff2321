import type { TemplateEngine } from '../domain/email-template.ts';
import type { RequestLimits } from '../domain/request-limits.ts';
import type { Db } from '../store/database.ts';
import type { Committer } from '../store/group-commit.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { ReadCaches } from './read-caches.ts';
import type { AccountQuotas } from './account-quotas.ts';
import type { LoadedSigningKey } from './certificate-signing-key.ts';
import type { IdempotencyKeysInProcess } from './idempotency-keys-in-process.ts';
import type { InboundSenderLimit } from './inbound-sender-limit.ts';

/** Milliseconds since the epoch; injected so tests control time. */
export type Clock = () => number;
/** A new UUIDv7 (time-ordered) each call. */
export type IdSource = () => string;

/** What every use case needs; main.ts builds one, tests build their own. */
export interface AppDeps {
  readonly db: Db;
  /** Commits the send path's transactions (grouped on SQLite, one per request on PostgreSQL). */
  readonly commit: Committer;
  readonly clock: Clock;
  readonly newId: IdSource;
  /** Tells the outbox worker that new work was committed, so it need not wait for its next poll. */
  readonly wakeOutbox: () => void;
  /** Tells the webhook dispatcher that events were committed (call after the commit); absent: it finds them on its next poll. */
  readonly wakeWebhooks?: () => void;
  /** Tells the contact import runners that an upload is ready (call after the commit); absent: they find it on their next poll. */
  readonly wakeImports?: () => void;
  /** Tells the campaign runners that a campaign is due (sent, resumed; call after the commit); absent: their next poll. */
  readonly wakeCampaigns?: () => void;
  /** Host part of Message-IDs and links (from HERALD_PUBLIC_URL). */
  readonly publicUrl: string;
  /** How long a tracked link redirects (HERALD_TRACKED_LINK_DAYS); absent: DEFAULT_TRACKED_LINK_DAYS (domain/tracking-token.ts). */
  readonly trackedLinkDays?: number;
  /** Domain of VERP envelope senders; its MX receives bounces (HERALD_BOUNCE_DOMAIN, default the public host). */
  readonly bounceDomain: string;
  /** DNS servers for domain verification (HERALD_DNS_SERVERS); empty: the system resolver. */
  readonly dnsServers: readonly string[];
  /** The bounds on one request's work in effect (HERALD_MAX_*; domain/request-limits.ts). */
  readonly limits: RequestLimits;
  /** Compiles and renders email templates and subjects within those limits, with a byte-bounded cache. */
  readonly templates: TemplateEngine;
  /** The process's Prometheus counters (src/metrics/registry.ts): accepts, outcomes, unexpected errors. */
  readonly metrics: Metrics;
  /** What send requests read, kept a second (app/read-caches.ts); absent: every request reads the store. */
  readonly readCaches?: ReadCaches;
  /** The HTTP request this work serves (its x-request-id), kept with a send for the delivery lines; absent outside a request. */
  readonly requestId?: string;
  /** What an account may keep and run at once (HERALD_ACCOUNT_MAX_*); absent: DEFAULT_ACCOUNT_QUOTAS. */
  readonly quotas?: AccountQuotas;
  /** Longest time a heavy read (segment counts, quotes, exports) may take, in ms (HERALD_HEAVY_READ_TIMEOUT_MS); absent: its default. */
  readonly heavyReadMs?: number;
  // Per-store state, made once per store by service.ts (openAppDeps) and shared by every copy of these deps.
  /** The Idempotency-Keys this process serves now, and its last purge of expired ones (app/idempotent-send.ts). */
  readonly idempotencyKeys: IdempotencyKeysInProcess;
  /** The receipt-signing key, loaded once (app/certificate-signing-key.ts). */
  readonly signingKey: LoadedSigningKey;
  /** The bound on messages one person sends (HERALD_INBOUND_PER_SENDER_PER_MINUTE; app/inbound-sender-limit.ts); absent: none. */
  readonly inboundLimit?: InboundSenderLimit;
}
