import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Account } from '../domain/account.ts';
import { isIpAllowed, parseAllowList, type AllowList } from '../domain/ip-allow-list.ts';

// Whether an account's IP allow-list admits an address: the one check of every door
// (the API's key and session admission, SMTP submission's AUTH).
//
// Allow-lists are stored as text; parsing one is cheap but not free, and the same
// few lists are checked on every request. A cached account (app/read-caches.ts) brings
// the same array each time, found by identity before any key is built (a WeakMap: an
// entry goes with its account object, so it needs no bound of its own).
const ALLOW_LISTS_KEPT = 1000;
const allowListCache = new BoundedCache<string, AllowList>({ maxEntries: ALLOW_LISTS_KEPT });
const allowListOfArray = new WeakMap<readonly string[], AllowList>();

function allowListOf(account: Account): AllowList {
  const known = allowListOfArray.get(account.ipAllowList);
  if (known !== undefined) return known;
  const list = allowListCache.obtain(JSON.stringify(account.ipAllowList), () => {
    const parsed = parseAllowList(account.ipAllowList);
    // Stored lists were validated on the way in; an unreadable one must not open the door.
    if (!parsed.ok) throw new Error(`account ${account.id} has an invalid stored ipAllowList`);
    return parsed.value;
  });
  allowListOfArray.set(account.ipAllowList, list);
  return list;
}

/** Whether `address` may use the account's keys; throws when the stored list does not parse (a bug, never an open door). */
export function allowListAdmits(account: Account, address: string): boolean {
  return isIpAllowed(allowListOf(account), address);
}
