import type { Kysely } from 'kysely';
import { accountRow, addNullable, lease, nullable, required, stamps, startingAt } from './column-kit.ts';

// Email campaigns (docs/campaigns.md): what to send to which audience, its state, its
// billing, and the campaign runner's progress and lease. A campaign's messages are
// ordinary messages carrying `campaign_id` and `contact_id` (migration 0009's columns
// and unique index); `sends.campaign_name` stores the `campaign` field of POST
// /v1/email so its tag can be counted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('campaigns')
    .$call(accountRow)
    // status: draft | scheduled | running | paused | finished | cancelled
    .$call(required('text', 'name', 'status', 'subject', 'from_email', 'from_name', 'reply_to_email', 'reply_to_name'))
    // Direct mode: the body; template mode: the template and its variables (JSON object).
    .$call(nullable('text', 'body', 'template_id'))
    .$call(startingAt('{}', 'text', 'variables'))
    // The audience: JSON arrays of list ids, and the filter (JSON, null: none).
    .$call(required('text', 'lists'))
    .$call(startingAt('[]', 'text', 'exclude_lists'))
    .$call(nullable('text', 'filter'))
    .$call(nullable('bigint', 'send_at'))
    .$call(nullable('integer', 'messages_per_minute'))
    // A follow-up (POST …/resend): the campaign it follows and to whom (not_opened | not_clicked).
    // content: fixed at send, the content (JSON {subject, html, text}) and tracking the messages get.
    .$call(nullable('text', 'parent_id', 'resend_to', 'content'))
    .$call(startingAt(0, 'integer', 'track_opens', 'track_clicks'))
    // cutoff: fixed at send, only contacts with a smaller id (UUIDv7: created before) are recipients;
    // cursor: the runner's keyset, the last contact id materialised; walked: 1 once the audience is walked.
    .$call(nullable('text', 'cutoff', 'cursor'))
    // Messages debited at send; billed messages created; dropped (suppressed) ones; refunded.
    .$call(startingAt(0, 'integer', 'walked', 'billed', 'queued', 'dropped', 'refunded'))
    // next_at: pacing, when the next message may go out (messages_per_minute);
    // due_at: when the runner should look at the campaign next (null: nothing to do).
    .$call(nullable('bigint', 'next_at', 'due_at'))
    .$call(lease)
    .$call(stamps)
    .$call(nullable('bigint', 'started_at', 'finished_at'))
    .execute();
  await db.schema.createIndex('campaigns_account').on('campaigns').columns(['account_id', 'id']).execute();
  // The runner's claim: due campaigns in time order.
  await db.schema.createIndex('campaigns_due').on('campaigns').columns(['due_at']).where('due_at', 'is not', null).execute();

  // The `campaign` field of POST /v1/email, kept so GET /v1/campaigns/tags/:name/stats can count it.
  await addNullable(db, 'sends', { campaign_name: 'text' });
  await db.schema.createIndex('sends_campaign_name').on('sends').columns(['account_id', 'campaign_name', 'id'])
    .where('campaign_name', 'is not', null).execute();
}
