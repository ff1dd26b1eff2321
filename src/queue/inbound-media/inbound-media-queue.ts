import type { Logger } from 'pino';
import { isPublicAddress } from '../../channels/guarded-fetch.ts';
import { fetchCloudApiMedia, MEDIA_TIMEOUT_MS, type MediaFetched } from '../../channels/whatsapp/cloud-api-media.ts';
import { findWhatsappCredentials } from '../../store/accounts.ts';
import type { Db } from '../../store/database.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';
import { transactionPerWork, type Committer } from '../../store/group-commit.ts';
import { LeaseLoop, loopSettings, type LeaseQueue } from '../lease-loop.ts';
import { claimDueMedia, recordMediaFailure, recordMediaStored, releaseAllMediaLeases, type MediaJob } from './claim.ts';

// WhatsApp users' media, fetched from Meta in the background (docs/inbound-whatsapp.md):
// the attachments of stored inbound messages wait `pending` with Meta's media id, and
// this queue leases them, fetches each with its account's token, and writes `stored`
// (the bytes) or, after a failure, tries again later or ends `failed`. The webhook that
// brought the message was answered long before: Meta's 200 never waits on its media.

export interface InboundMediaOptions {
  readonly owner: string;
  /** Outlives both requests of a fetch (two time-outs) with room to write the outcome. */
  readonly leaseMs: number;
  readonly pollMs: number;
  /** Attempts before an attachment ends `failed`; each lease counts one, a fetch that never finished too. */
  readonly maxAttempts: number;
  /** Wait after the nth failed attempt (the last entry repeats). */
  readonly retryDelaysMs: readonly number[];
}

export interface InboundMediaDeps {
  readonly db: Db;
  readonly commit?: Committer;
  readonly clock: () => number;
  readonly capabilities: DialectCapabilities;
  readonly logger: Logger;
  /** The account's Cloud API token (app/whatsapp-credentials.ts): read per fetch, so a rotated token is used at once. */
  readonly accessToken: (accountId: string) => Promise<string | undefined>;
  /** Fetches one media id with a token: channels/whatsapp/cloud-api-media.ts over the configured Graph API root. */
  readonly fetchMedia: (mediaRef: string, accessToken: string) => Promise<MediaFetched>;
}

const LANES = ['media'] as const;

/** Largest claim and fetches in flight: each holds up to HERALD_INBOUND_MEDIA_MAX_BYTES in memory until it is written. */
export const INBOUND_MEDIA_SLOTS = { batchSize: 8, concurrency: 4 } as const;

// 1 min, 5 min, 30 min, 2 h: a passing outage of Meta's (or of the token, being
// rotated) is waited out within a few hours, well inside the 30 days a media id lasts.
export const DEFAULT_INBOUND_MEDIA_OPTIONS = {
  leaseMs: 180_000, pollMs: 1000, maxAttempts: 5, retryDelaysMs: [60_000, 300_000, 1_800_000, 7_200_000],
} as const;

/**
 * The token and the fetch of the Cloud API: `baseUrl` is HERALD_WHATSAPP_TRANSPORT's
 * Graph API root, `maxBytes` HERALD_INBOUND_MEDIA_MAX_BYTES; the media URLs Meta gives
 * must be public addresses unless `allowPrivate` (HERALD_FETCH_ALLOW_PRIVATE) or the
 * given `allowAddress` (a test's loopback peer) says otherwise.
 */
export function cloudApiMediaDeps(
  db: Db,
  settings: { readonly baseUrl: string; readonly maxBytes: number; readonly allowPrivate: boolean; readonly allowAddress?: (address: string) => boolean; readonly timeoutMs?: number },
): Pick<InboundMediaDeps, 'accessToken' | 'fetchMedia'> {
  const allowAddress = settings.allowAddress ?? (settings.allowPrivate ? () => true : isPublicAddress);
  const options = { baseUrl: settings.baseUrl, maxBytes: settings.maxBytes, timeoutMs: settings.timeoutMs ?? MEDIA_TIMEOUT_MS, allowAddress };
  return {
    accessToken: async (accountId) => (await findWhatsappCredentials(db, accountId))?.accessToken,
    fetchMedia: (mediaRef, accessToken) => fetchCloudApiMedia(mediaRef, accessToken, options),
  };
}

export class InboundMediaQueue extends LeaseLoop<'media', MediaJob> {
  constructor(deps: InboundMediaDeps, options: InboundMediaOptions) {
    super(new MediaQueue(deps, options), ...loopSettings({ ...INBOUND_MEDIA_SLOTS, pollMs: options.pollMs }, deps));
  }
}

/** What the loop asks of the media: the due attachments, and each fetched and its outcome written under its lease. */
class MediaQueue implements LeaseQueue<'media', MediaJob> {
  readonly name = 'inbound-media';
  readonly lanes = LANES;
  readonly #deps: InboundMediaDeps;
  readonly #commit: Committer;
  readonly #options: InboundMediaOptions;

  constructor(deps: InboundMediaDeps, options: InboundMediaOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#commit = deps.commit ?? transactionPerWork(deps.db);
  }

  releaseAllLeases(): Promise<number> {
    return releaseAllMediaLeases(this.#deps.db);
  }

  claim(_lane: 'media', limit: number): Promise<readonly MediaJob[]> {
    if (limit === 0) return Promise.resolve([]);
    const { owner, leaseMs } = this.#options;
    return this.#commit.run((tx) => claimDueMedia(tx, this.#deps.capabilities, { owner, now: this.#deps.clock(), leaseMs, limit }));
  }

  unwritten(): number {
    return 0;
  }

  async deliver(job: MediaJob): Promise<void> {
    try {
      const fetched = await this.#fetch(job);
      const now = this.#deps.clock();
      const { owner } = this.#options;
      if (fetched.ok) {
        await this.#commit.run((tx) => recordMediaStored(tx, job.id, owner, { content: fetched.body, contentType: fetched.contentType, now }));
        return;
      }
      const retry = !fetched.permanent && job.attempts < this.#options.maxAttempts;
      const nextAttemptAt = retry ? now + this.#delayAfter(job.attempts) : undefined;
      await this.#commit.run((tx) => recordMediaFailure(tx, job.id, owner, { reason: fetched.reason, nextAttemptAt, now }));
      if (!retry) this.#deps.logger.warn({ attachment: job.id, inbound: job.inboundId, attempts: job.attempts, reason: fetched.reason }, 'inbound media not fetched; attachment failed');
    } catch (error) {
      // The store failed: the lease expires and the attachment is tried again then.
      this.#deps.logger.error({ err: error, attachment: job.id }, 'could not record an inbound media fetch');
    }
  }

  async #fetch(job: MediaJob): Promise<MediaFetched> {
    // Leased again after leases that never finished (a fetch that stopped its process): not tried again.
    if (job.attempts > this.#options.maxAttempts) return { ok: false, reason: `gave up after ${this.#options.maxAttempts} attempts that did not finish`, permanent: true };
    const token = await this.#deps.accessToken(job.accountId);
    // The operator may set the token yet: tried again on the schedule.
    if (token === undefined) return { ok: false, reason: 'WhatsApp is not configured for this account', permanent: false };
    return this.#deps.fetchMedia(job.mediaRef, token);
  }

  #delayAfter(attempts: number): number {
    const delays = this.#options.retryDelaysMs;
    return delays[Math.min(attempts, delays.length) - 1] ?? 60_000;
  }
}
