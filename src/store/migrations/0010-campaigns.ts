import type { Kysely } from 'kysely';

// Email campaigns (docs/campaigns.md): what to send to which audience, its state, its
// billing, and the campaign runner's progress and lease. A campaign's messages are
// ordinary messages carrying `campaign_id` and `contact_id` (migration 0009's columns
// and unique index); `sends.campaign_name` stores the `campaign` field of POST
// /v1/email so its tag can be counted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // draft | scheduled | running | paused | finished | cancelled
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text', (c) => c.notNull())
    .addColumn('reply_to_email', 'text', (c) => c.notNull())
    .addColumn('reply_to_name', 'text', (c) => c.notNull())
    // Direct mode: the body; template mode: the template and its variables (JSON object).
    .addColumn('body', 'text')
    .addColumn('template_id', 'text')
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('{}'))
    // The audience: JSON arrays of list ids, and the filter (JSON, null: none).
    .addColumn('lists', 'text', (c) => c.notNull())
    .addColumn('exclude_lists', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('filter', 'text')
    .addColumn('send_at', 'bigint')
    .addColumn('messages_per_minute', 'integer')
    // A follow-up (POST …/resend): the campaign it follows and to whom (not_opened | not_clicked).
    .addColumn('parent_id', 'text')
    .addColumn('resend_to', 'text')
    // Fixed at send: the content (JSON {subject, html, text}) and tracking the messages get.
    .addColumn('content', 'text')
    .addColumn('track_opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('track_clicks', 'integer', (c) => c.notNull().defaultTo(0))
    // Fixed at send: only contacts with a smaller id (UUIDv7: created before) are recipients.
    .addColumn('cutoff', 'text')
    // The runner's keyset: the last contact id materialised; 1 once the audience is walked.
    .addColumn('cursor', 'text')
    .addColumn('walked', 'integer', (c) => c.notNull().defaultTo(0))
    // Messages debited at send; billed messages created; dropped (suppressed) ones; refunded.
    .addColumn('billed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('queued', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('dropped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refunded', 'integer', (c) => c.notNull().defaultTo(0))
    // Pacing: when the next message may go out (messages_per_minute).
    .addColumn('next_at', 'bigint')
    // When the runner should look at the campaign next (null: nothing to do).
    .addColumn('due_at', 'bigint')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('campaigns_account').on('campaigns').columns(['account_id', 'id']).execute();
  // The runner's claim: due campaigns in time order.
  await db.schema.createIndex('campaigns_due').on('campaigns').columns(['due_at']).where('due_at', 'is not', null).execute();

  // The `campaign` field of POST /v1/email, kept so GET /v1/campaigns/tags/:name/stats can count it.
  await db.schema.alterTable('sends').addColumn('campaign_name', 'text').execute();
  await db.schema.createIndex('sends_campaign_name').on('sends').columns(['account_id', 'campaign_name', 'id'])
    .where('campaign_name', 'is not', null).execute();
}
