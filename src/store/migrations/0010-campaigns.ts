import type { Kysely } from 'kysely';
import { accountRow, addNullable, createTable, lease, nullable, required, stamps, startingAt } from './column-kit.ts';

// Email campaigns (docs/campaigns.md): what to send to which audience, its state, its
// billing, and the campaign runner's progress and lease. A campaign's messages are
// ordinary messages carrying `campaign_id` and `contact_id` (migration 0009's columns
// and unique index); `sends.campaign_name` stores the `campaign` field of POST
// /v1/email so its tag can be counted.
export async function up(db: Kysely<unknown>): Promise<void> {
  // status: draft | scheduled | running | paused | finished | cancelled. Direct mode: the body;
  // template mode: the template and its variables (JSON object). The audience: JSON arrays of list
  // ids, and the filter (JSON, null: none). A follow-up (POST …/resend): parent_id, the campaign it
  // follows, and resend_to, to whom (not_opened | not_clicked). Fixed at send: content (JSON
  // {subject, html, text}), the tracking the messages get, and cutoff (only contacts with a smaller
  // id, UUIDv7: created before, are recipients). cursor: the runner's keyset, the last contact id
  // materialised; walked: 1 once the audience is walked. Messages debited at send (billed), created
  // (queued), dropped (suppressed) and refunded. next_at: pacing, when the next message may go out;
  // due_at: when the runner should look at the campaign next (null: nothing to do).
  await createTable(db, 'campaigns', [
    accountRow, required('text', 'name', 'status', 'subject', 'from_email', 'from_name', 'reply_to_email', 'reply_to_name'),
    nullable('text', 'body', 'template_id'), startingAt('{}', 'text', 'variables'),
    required('text', 'lists'), startingAt('[]', 'text', 'exclude_lists'), nullable('text', 'filter'),
    nullable('bigint', 'send_at'), nullable('integer', 'messages_per_minute'), nullable('text', 'parent_id', 'resend_to', 'content'),
    startingAt(0, 'integer', 'track_opens', 'track_clicks'), nullable('text', 'cutoff', 'cursor'),
    startingAt(0, 'integer', 'walked', 'billed', 'queued', 'dropped', 'refunded'), nullable('bigint', 'next_at', 'due_at'),
    lease, stamps, nullable('bigint', 'started_at', 'finished_at'),
  ]);
  await db.schema.createIndex('campaigns_account').on('campaigns').columns(['account_id', 'id']).execute();
  // The runner's claim: due campaigns in time order.
  await db.schema.createIndex('campaigns_due').on('campaigns').columns(['due_at']).where('due_at', 'is not', null).execute();

  // The `campaign` field of POST /v1/email, kept so GET /v1/campaigns/tags/:name/stats can count it.
  await addNullable(db, 'sends', { campaign_name: 'text' });
  await db.schema.createIndex('sends_campaign_name').on('sends').columns(['account_id', 'campaign_name', 'id'])
    .where('campaign_name', 'is not', null).execute();
}
