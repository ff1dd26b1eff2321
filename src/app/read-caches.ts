import type { Account } from '../domain/account.ts';
import { findAccount } from '../store/accounts.ts';
import { findSenderDomain, type SenderDomain } from '../store/sender-domains.ts';
import { findWhatsappTemplate, type WhatsappTemplate } from '../store/whatsapp-templates.ts';
import type { Db } from '../store/database.ts';
import { BoundedCache, readThrough } from '../cache/bounded-cache.ts';

// What every send request read from the store before it could write anything: the
// account (for its settings: services, rate, allow-list, price), the sender domain of an
// email, the template of a WhatsApp message. Each is kept READ_CACHE_TTL_MS, so a send
// of a known account reads nothing before its own unit of work.
//
// How changes take effect (docs/performance.md "Read caches"):
//  - an account changed through this process (operator API, PATCH /v1/account, webhook
//    settings, top-up) is evicted after its commit: the next request reads it again;
//  - one changed by another process (the CLI, another API process) is seen within
//    READ_CACHE_TTL_MS;
//  - only a verified sender domain and an APPROVED template are kept (a domain cannot be
//    unverified, a template's status is never changed once stored): a domain verified or
//    a template added now is read, and used, at once;
//  - the amounts (messages left, balance) in a cached account are NOT read by any
//    decision: debits are conditional UPDATEs in the send's unit of work, and the views
//    that show amounts read the account again (http/routes/account.ts).

/** How long another process's change may take to apply here. */
export const READ_CACHE_TTL_MS = 1000;

export interface ReadCaches {
  readonly accounts: BoundedCache<string, Account>;
  /** By `<account id>\n<domain>`. */
  readonly senderDomains: BoundedCache<string, SenderDomain>;
  /** By `<account id>\n<template id>`. */
  readonly whatsappTemplates: BoundedCache<string, WhatsappTemplate>;
}

/** Each holds at most this many entries (the least recently used go first), so many accounts cannot grow them. */
export const READ_CACHE_ENTRIES = 10_000;

export function newReadCaches(ttlMs = READ_CACHE_TTL_MS): ReadCaches {
  return {
    accounts: new BoundedCache({ ttlMs, maxEntries: READ_CACHE_ENTRIES }),
    senderDomains: new BoundedCache({ ttlMs, maxEntries: READ_CACHE_ENTRIES }),
    whatsappTemplates: new BoundedCache({ ttlMs, maxEntries: READ_CACHE_ENTRIES }),
  };
}

/** What the readers below use of AppDeps, spelled out so this module does not import deps.ts (which names ReadCaches). */
interface Reader {
  readonly db: Db;
  readonly clock: () => number;
  readonly readCaches?: ReadCaches;
}

/** The account, at most READ_CACHE_TTL_MS old (see above for what may read it). */
export const cachedAccount = (deps: Reader, id: string): Promise<Account | undefined> =>
  readThrough(deps.readCaches?.accounts, id, deps.clock(), () => findAccount(deps.db, id));

/** The account's sender domain when it is verified; a domain not verified is read every time. */
export const verifiedSenderDomain = async (deps: Reader, accountId: string, domain: string): Promise<SenderDomain | undefined> => {
  const found = await readThrough(deps.readCaches?.senderDomains, `${accountId}\n${domain}`, deps.clock(), () => findSenderDomain(deps.db, accountId, domain), (d) => d.verified);
  return found?.verified === true ? found : undefined;
};

/** The account's WhatsApp template when it is approved; any other is read every time. */
export const approvedWhatsappTemplate = async (deps: Reader, accountId: string, id: string): Promise<WhatsappTemplate | undefined> => {
  const found = await readThrough(deps.readCaches?.whatsappTemplates, `${accountId}\n${id}`, deps.clock(), () => findWhatsappTemplate(deps.db, accountId, id), (t) => t.status === 'APPROVED');
  return found?.status === 'APPROVED' ? found : undefined;
};

/** After a commit that changed the account: this process reads it again on its next request. */
export function forgetAccount(deps: Pick<Reader, 'readCaches'>, id: string): void {
  deps.readCaches?.accounts.delete(id);
}

/** The account as stored now (for views that show its amounts), remembered for the next requests. */
export async function freshAccount(deps: Reader, id: string): Promise<Account | undefined> {
  const account = await findAccount(deps.db, id);
  if (account !== undefined) deps.readCaches?.accounts.set(id, account, { now: deps.clock() });
  return account;
}
