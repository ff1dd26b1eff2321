import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KeyDeps } from '../app/api-keys.ts';
import { advanceCampaign, type CampaignWorkOptions } from '../app/campaign-batch.ts';
import { claimDueCampaign, releaseAllCampaigns, releaseCampaign } from '../store/campaigns.ts';
import type { DialectCapabilities } from '../store/dialect.ts';

// The background maker of campaign messages: claims one due campaign at a time with a
// lease (store/campaigns.ts claimDueCampaign, SKIP LOCKED on PostgreSQL), runs its
// batches (app/campaign-batch.ts advanceCampaign) and lets it go with the time it is
// due next (paced, or waiting for its last outcomes). Several processes share the
// campaigns; each batch commits only while its runner holds the lease, so a runner
// that died or stalled cannot add to a campaign another has taken over. Woken by a
// send or resume in this process, by NOTIFY from others (PostgreSQL), else its poll.

/** The channel API processes notify when a campaign becomes due. */
export const CAMPAIGNS_WAKE = 'herald_campaigns';

export interface CampaignRunnerOptions extends CampaignWorkOptions {
  /** How often an idle runner looks for due campaigns (scheduled ones, paced ones, leases run out). */
  readonly pollMs: number;
  /** Batches of one campaign before the runner looks at others (a big campaign does not starve a small one). */
  readonly batchesPerTurn: number;
}

export const DEFAULT_CAMPAIGN_RUNNER_OPTIONS: CampaignRunnerOptions = {
  leaseMs: 60_000, pollMs: 1_000, batchSize: 500, lookaheadMs: 5_000, finishPollMs: 1_000, batchesPerTurn: 20,
};

export class CampaignRunner {
  readonly #deps: KeyDeps;
  readonly #capabilities: DialectCapabilities;
  readonly #logger: Logger;
  readonly #options: CampaignRunnerOptions;
  readonly #owner = `campaigns-${randomUUID()}`;
  #running: Promise<void> | undefined;
  #again = false;
  #stopping = false;
  #timer: NodeJS.Timeout | undefined;
  #started: Promise<void> | undefined;
  /** Woken by sends only once started: a service without its workers (tests) runs campaigns by drain(). */
  #active = false;

  constructor(deps: KeyDeps, capabilities: DialectCapabilities, logger: Logger, options: CampaignRunnerOptions = DEFAULT_CAMPAIGN_RUNNER_OPTIONS) {
    this.#deps = deps;
    this.#capabilities = capabilities;
    this.#logger = logger;
    this.#options = options;
  }

  /** Starts polling; on embedded SQLite, leases found now belonged to a previous run and are let go at once. */
  start(): void {
    this.#active = true;
    this.#started = (this.#capabilities.singleServerProcess ? releaseAllCampaigns(this.#deps.db) : Promise.resolve()).then(() => this.wake());
    this.#started.catch((error: unknown) => this.#logger.error({ err: error }, 'campaign leases not released'));
  }

  /** Looks for due campaigns now. */
  wake(): void {
    if (this.#active) this.#kick();
  }

  #kick(): void {
    if (this.#stopping) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#running = this.#work().finally(() => {
      this.#running = undefined;
      if (this.#stopping) return;
      if (this.#again) {
        this.#again = false;
        this.#kick();
      } else {
        if (this.#active) this.#timer = setTimeout(() => this.#kick(), this.#options.pollMs);
        this.#timer?.unref();
      }
    });
  }

  /** Resolves when nothing is due now (tests and benchmarks: after a send, with the clock moved on). */
  async drain(): Promise<void> {
    await this.#started;
    if (this.#running === undefined) this.#kick();
    while (this.#running !== undefined) await this.#running;
  }

  /** Stops after the batch in hand; the campaign is let go, for the next runner to resume. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#started?.catch(() => {});
    await this.#running;
  }

  async #work(): Promise<void> {
    try {
      for (;;) {
        if (this.#stopping) return;
        const { db, clock } = this.#deps;
        const campaign = await claimDueCampaign(db, this.#capabilities, this.#owner, clock(), this.#options.leaseMs);
        if (campaign === undefined) return;
        let batches = 0;
        const step = await advanceCampaign(this.#deps, campaign, this.#owner, this.#options, () => !this.#stopping && batches++ < this.#options.batchesPerTurn);
        if (step.kind === 'release') await releaseCampaign(db, campaign.id, this.#owner, step.dueAt);
        if (step.kind === 'lost') this.#logger.warn({ campaignId: campaign.id }, 'campaign taken over by another runner');
      }
    } catch (error) {
      // The lease runs out and a runner (this one, next poll) resumes after the last committed batch.
      this.#logger.error({ err: error }, 'campaign batch failed unexpectedly');
    }
  }
}
