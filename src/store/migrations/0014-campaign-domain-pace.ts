import type { Kysely } from 'kysely';
import { addNullable, belongsTo, createTable, primaryKey, required } from './column-kit.ts';

// A campaign's per-destination-domain pace (docs/campaigns.md, Pacing): the limit a
// campaign was given, and, per recipient domain it sends to, when its next message to
// that domain may go. The runner reads and writes a batch's domains in the batch's
// transaction, so a crash or a takeover never forgets a domain's pace. Campaigns from
// before keep null: no per-domain limit, as they were sent.
//
// And the runner's look at a campaign's messages still waiting for delivery (its outbox
// backlog, and whether it can finish): by (campaign, status), so it visits the waiting
// ones only, not every message the campaign made (which grew with each batch: quadratic
// over a campaign of a million).
export async function up(db: Kysely<unknown>): Promise<void> {
  await addNullable(db, 'campaigns', { messages_per_minute_per_domain: 'integer' });
  await createTable(db, 'campaign_domains', [
    belongsTo('campaign_id', 'campaigns.id'), required('text', 'domain'), required('bigint', 'next_at'), primaryKey('campaign_domains_pkey', ['campaign_id', 'domain']),
  ]);
  await db.schema.createIndex('messages_campaign_status').on('messages').columns(['campaign_id', 'status'])
    .where('campaign_id', 'is not', null).execute();
}
