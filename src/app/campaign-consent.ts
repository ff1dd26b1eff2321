import type { SubscriptionStatus } from '../campaigns/consent.ts';
import { findCampaign } from '../store/campaigns.ts';
import type { Executor } from '../store/database.ts';
import { queryRows, statement } from '../store/prepared-statement.ts';
import { changeSubscriptions, subscriptionsOf } from '../store/subscriptions.ts';
import type { AppDeps } from './deps.ts';

// Consent changes a campaign message causes (docs/campaigns.md "Unsubscribe and
// complaints"): its unsubscribe link and List-Unsubscribe one-click leave the
// campaign's lists only (or, when the person asks on the page, every list of the
// account); a complaint leaves every list. Each change is a consent event with source
// `unsubscribe` or `complaint` and the msgid, shown on the contact. No suppression:
// a list unsubscribe never stops transactional email.

export interface CampaignMessage {
  readonly id: string;
  readonly accountId: string;
  readonly campaignId: string;
  readonly contactId: string | null;
}

/** The lists `scope` names for the message's contact, with the contact's status on each (absent: not on it). */
export async function campaignSubscriptions(
  db: Executor, message: CampaignMessage, scope: 'campaign' | 'all',
): Promise<{ listId: string; status: SubscriptionStatus }[]> {
  if (message.contactId === null) return [];
  const subscriptions = (await subscriptionsOf(db, [message.contactId])).get(message.contactId) ?? [];
  if (scope === 'all') return subscriptions;
  const campaign = await findCampaign(db, message.accountId, message.campaignId);
  const lists = new Set(campaign?.lists ?? []);
  return subscriptions.filter((s) => lists.has(s.listId));
}

/** Unsubscribes the message's contact from the lists of `scope`; the lists whose status changed. */
export async function leaveLists(
  deps: Pick<AppDeps, 'newId'>, tx: Executor, message: CampaignMessage, change: { scope: 'campaign' | 'all'; source: 'unsubscribe' | 'complaint'; at: number },
): Promise<string[]> {
  const contactId = message.contactId;
  if (contactId === null) return [];
  const leaving = (await campaignSubscriptions(tx, message, change.scope)).filter((s) => s.status !== 'unsubscribed').map((s) => s.listId);
  await changeSubscriptions(tx, leaving.map((listId) => ({
    id: deps.newId(), contactId, listId, status: 'unsubscribed', source: change.source, at: change.at, detail: { msgid: message.id },
  })));
  return leaving;
}

/** A complaint about a campaign message: its contact leaves every list of the account (the suppression is the caller's). */
export async function leaveEveryList(deps: Pick<AppDeps, 'newId'>, tx: Executor, messageId: string, at: number): Promise<void> {
  const [row] = await queryRows<{ account_id: string; campaign_id: string | null; contact_id: string | null }>(tx, CAMPAIGN_OF_MESSAGE, [messageId]);
  if (row === undefined || row.campaign_id === null) return;
  await leaveLists(deps, tx, { id: messageId, accountId: row.account_id, campaignId: row.campaign_id, contactId: row.contact_id }, { scope: 'all', source: 'complaint', at });
}

const CAMPAIGN_OF_MESSAGE = statement('select account_id, campaign_id, contact_id from messages where id = $1');
