import type { Channel } from '../domain/account.ts';
import type { InboundEventType } from '../domain/event-catalogue.ts';
import type { Executor } from '../store/database.ts';
import { recordLedgerEntry, type ConsentChange, type LedgerEntry } from '../store/consent-ledger.ts';
import { queueAccountEvent } from './account-event.ts';
import type { AppDeps } from './deps.ts';

// One door into the consent ledger: every change of a person's consent, on any channel,
// is written here with its proof, and the opt-out state follows it in the same
// transaction. SMS and WhatsApp changes are posted as `*.opted_out` / `*.opted_in`.

/** A change to write: a ledger entry before it has its id, the keyword only when there is one. */
export type ConsentChangeRequest = Omit<LedgerEntry, 'id' | 'keyword'> & { readonly keyword?: string | undefined };

const POSTED: Partial<Record<Channel, Readonly<Record<ConsentChange, InboundEventType>>>> = {
  sms: { opted_out: 'sms.opted_out', opted_in: 'sms.opted_in' },
  whatsapp: { opted_out: 'whatsapp.opted_out', opted_in: 'whatsapp.opted_in' },
};

export async function recordConsentChange(db: Executor, deps: Pick<AppDeps, 'newId'>, request: ConsentChangeRequest): Promise<string> {
  const id = deps.newId();
  await recordLedgerEntry(db, {
    id, accountId: request.accountId, channel: request.channel, address: request.address, sender: request.sender, change: request.change,
    source: request.source, keyword: request.keyword ?? null, proof: request.proof, at: request.at,
  });
  const type = POSTED[request.channel]?.[request.change];
  if (type !== undefined) {
    await queueAccountEvent(db, {
      id: deps.newId(), accountId: request.accountId, type, at: request.at,
      data: { account: request.accountId, channel: request.channel, number: request.address, sender: request.sender, keyword: request.keyword ?? null, ledger_id: id },
    });
  }
  return id;
}
