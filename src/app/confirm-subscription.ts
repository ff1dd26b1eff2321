import { confirmSubscriptionStatus } from '../campaigns/consent.ts';
import { confirmationTokens, type ConfirmationClaims } from '../campaigns/consent-token.ts';
import { findContact } from '../store/contacts.ts';
import { findList } from '../store/lists.ts';
import { changeSubscriptions, subscriptionStatuses } from '../store/subscriptions.ts';
import type { KeyDeps } from './api-keys.ts';

// The double opt-in link (/confirm/:token). A GET only shows what the link would
// confirm, with a button: mail scanners fetch every link, and must not subscribe
// anyone. The button's POST confirms an `unconfirmed` subscription and records the
// change (source `link`, with the visitor's IP and User-Agent). A forged or altered
// token is refused before any look-up; an expired one says so.

export interface LinkVisit {
  readonly ip: string;
  readonly userAgent: string | undefined;
}

/** What the page shows. */
export type ConfirmationPage =
  | { readonly kind: 'invalid' | 'expired' }
  | {
    /** ask: GET of an unconfirmed subscription; confirmed: the POST did it; withdrawn: unsubscribed since, or gone. */
    readonly kind: 'ask' | 'confirmed' | 'already-confirmed' | 'withdrawn';
    readonly address: string;
    readonly listName: string;
    readonly senderName: string;
  };

const USER_AGENT_MAX = 512;

async function subjectOf(deps: KeyDeps, token: string): Promise<ConfirmationPage | { kind: 'found'; claims: ConfirmationClaims; address: string; listName: string; senderName: string }> {
  const checked = await confirmationTokens(deps.signingSecret).verify(token, deps.clock());
  if (checked.kind !== 'valid') return { kind: checked.kind };
  const { claims } = checked;
  const [list, contact] = await Promise.all([findList(deps.db, claims.accountId, claims.listId), findContact(deps.db, claims.accountId, claims.contactId)]);
  // An erased contact or a deleted list: nothing left to confirm, and nobody to name.
  if (list === undefined || contact === undefined) return { kind: 'invalid' };
  return { kind: 'found', claims, address: contact.email, listName: list.name, senderName: list.from?.name ?? list.name };
}

/** GET /confirm/:token */
export async function describeConfirmation(deps: KeyDeps, token: string): Promise<ConfirmationPage> {
  const subject = await subjectOf(deps, token);
  if (subject.kind !== 'found') return subject;
  const status = (await subscriptionStatuses(deps.db, subject.claims.listId, [subject.claims.contactId])).get(subject.claims.contactId);
  const state = confirmSubscriptionStatus(status);
  const { address, listName, senderName } = subject;
  return { kind: state === 'confirm' ? 'ask' : state, address, listName, senderName };
}

/** POST /confirm/:token */
export async function confirmSubscription(deps: KeyDeps, token: string, visit: LinkVisit): Promise<ConfirmationPage> {
  const subject = await subjectOf(deps, token);
  if (subject.kind !== 'found') return subject;
  const { claims, address, listName, senderName } = subject;
  const at = deps.clock();
  const state = await deps.commit.run(async (tx) => {
    const status = (await subscriptionStatuses(tx, claims.listId, [claims.contactId])).get(claims.contactId);
    const decided = confirmSubscriptionStatus(status);
    if (decided === 'confirm') {
      await changeSubscriptions(tx, [{
        id: deps.newId(), contactId: claims.contactId, listId: claims.listId, status: 'confirmed', source: 'link', at,
        detail: { ip: visit.ip, ...(visit.userAgent === undefined ? {} : { user_agent: visit.userAgent.slice(0, USER_AGENT_MAX) }) },
      }]);
    }
    return decided;
  });
  return { kind: state === 'confirm' ? 'confirmed' : state, address, listName, senderName };
}
