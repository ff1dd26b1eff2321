import type { Logger } from 'pino';
import type { KeyDeps } from '../../app/api-keys.ts';
import { advanceCampaign, type CampaignWorkOptions } from '../../app/campaign-batch.ts';
import { LeaseLoop } from '../lease-loop.ts';
import { oneAtATimeLoop, OneAtATimeQueue, type OneAtATimeOptions } from '../one-at-a-time.ts';
import type { Campaign } from '../../store/campaigns.ts';
import { claimDueCampaign, releaseAllCampaigns, releaseCampaign, releaseLease } from './claim.ts';
import type { DialectCapabilities } from '../../store/dialect.ts';

// The background maker of campaign messages: a queue of the shared lease loop
// (queue/lease-loop.ts) whose jobs are campaigns. A claim leases the campaign due
// first (queue/campaigns/claim.ts claimDueCampaign, SKIP LOCKED on PostgreSQL); delivering it
// runs its batches (app/campaign-batch.ts advanceCampaign) and lets it go with the time
// it is due next (paced, held by its outbox backlog, or waiting for its last outcomes).
// Several processes share the campaigns; each batch commits only while its runner
// holds the lease, so a runner that died or stalled cannot add to a campaign another
// has taken over. Woken by a send or resume in this process, by NOTIFY from others
// (PostgreSQL), else the loop's poll.

/** The channel API processes notify when a campaign becomes due. */
export const CAMPAIGNS_WAKE = 'herald_campaigns';

/** pollMs: how often an idle runner looks for due campaigns (scheduled ones, paced ones, leases run out). */
export interface CampaignRunnerOptions extends CampaignWorkOptions, OneAtATimeOptions {
  /** Batches of one campaign before the runner looks at others (a big campaign does not starve a small one). */
  readonly batchesPerTurn: number;
}

export const DEFAULT_CAMPAIGN_RUNNER_OPTIONS: CampaignRunnerOptions = {
  leaseMs: 60_000, pollMs: 1_000, batchSize: 500, lookaheadMs: 5_000, finishPollMs: 1_000, batchesPerTurn: 20, backlog: 4_000,
};

export class CampaignRunner extends LeaseLoop<'campaigns', Campaign> {
  constructor(deps: KeyDeps, capabilities: DialectCapabilities, logger: Logger, options: CampaignRunnerOptions = DEFAULT_CAMPAIGN_RUNNER_OPTIONS) {
    // One campaign at a time per process: its batches are database work on one connection.
    super(...oneAtATimeLoop(new CampaignQueue('campaigns', deps, capabilities, logger, options)));
  }
}

/** What the loop asks of the campaigns: the one due first, and its batches; stop() lets it go after the batch in hand. */
class CampaignQueue extends OneAtATimeQueue<'campaigns', Campaign, CampaignRunnerOptions> {

  releaseAllLeases(): Promise<number> {
    return releaseAllCampaigns(this.deps.db);
  }

  async claim(_lane: 'campaigns', limit: number): Promise<readonly Campaign[]> {
    if (limit === 0 || this.stopped) return [];
    const campaign = await claimDueCampaign(this.deps.db, this.capabilities, this.owner, this.deps.clock(), this.options.leaseMs);
    return campaign === undefined ? [] : [campaign];
  }

  async deliver(campaign: Campaign): Promise<void> {
    const { db } = this.deps;
    try {
      let batches = 0;
      const step = await advanceCampaign(this.deps, campaign, this.owner, this.options, () => !this.stopped && batches++ < this.options.batchesPerTurn);
      if (step.kind === 'release') await releaseCampaign(db, campaign.id, this.owner, step.dueAt);
      // Paused under the runner: let go now, so a resume is claimed at once (not after the lease runs out).
      if (step.kind === 'stopped') await releaseLease(db, campaign.id, this.owner);
      if (step.kind === 'lost') this.logger.warn({ campaignId: campaign.id }, 'campaign taken over by another runner');
    } catch (error) {
      // The lease runs out and a runner (this one, next poll) resumes after the last committed batch.
      this.logger.error({ err: error, campaignId: campaign.id }, 'campaign batch failed unexpectedly');
    }
  }
}
