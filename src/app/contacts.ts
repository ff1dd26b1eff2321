import {
  ContactQuerySchema, DEFAULT_CONTACT_PAGE,
  type ContactCreate, type ContactPage, type ContactPatch, type ContactSummary, type ContactView,
} from '../campaigns/contact-shapes.ts';
import { attributesProblem, contactEmail, contactName } from '../campaigns/contact-fields.ts';
import { channelActive, type Account } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { isJsonObject, ownField } from '../domain/json-object.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { checkValue } from '../domain/schema-check.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { countContacts, deleteContact, findContact, findContactsByEmail, listContacts, updateContact, type Contact } from '../store/contacts.ts';
import type { Executor } from '../store/database.ts';
import { findList, findLists, type MailingList } from '../store/lists.ts';
import { changeSubscriptions, consentHistory, subscriptionsOf, subscriptionStatuses } from '../store/subscriptions.ts';
import { addSuppression } from '../store/suppressions.ts';
import { inboundEmailFrom, recordErasure, unlinkContactMessages } from '../store/contact-erasures.ts';
import { purgeInboundContent } from '../store/retention.ts';
import type { KeyDeps } from './api-keys.ts';
import { contactQuotaText, DEFAULT_ACCOUNT_QUOTAS } from './account-quotas.ts';
import type { AppDeps } from './deps.ts';
import { applyContactInput, joinLists, prepareJoins, upsertContacts, type JoinOutcome, type ListJoin } from './subscribe-contacts.ts';

// /v1/contacts: one contact per address and account. POST upserts by address (201
// new, 200 existing) and joins lists by the consent rules; PATCH changes fields, joins
// and leaves lists; DELETE erases the person (see deleteAccountContact). Bodies are
// checked against campaigns/contact-shapes.ts, then by the rules a shape cannot say.

/** Consent changes shown on a contact: the latest, oldest first. */
export const CONSENT_SHOWN = 100;

const iso = (ms: number): string => new Date(ms).toISOString();
const invalid = (detail: string) => reject('invalidField', { detail });

async function summaries(db: Executor, contacts: readonly Contact[]): Promise<ContactSummary[]> {
  const subscriptions = await subscriptionsOf(db, contacts.map((c) => c.id));
  return contacts.map((c) => ({
    contact_id: c.id, email: c.email, name: c.name, attributes: { ...c.attributes },
    lists: (subscriptions.get(c.id) ?? []).map((s) => ({ list_id: s.listId, status: s.status })),
    created_at: iso(c.createdAt), updated_at: iso(c.updatedAt),
  }));
}

async function contactView(db: Executor, contact: Contact): Promise<ContactView> {
  const [summary] = await summaries(db, [contact]);
  const consent = await consentHistory(db, contact.id, CONSENT_SHOWN);
  return {
    ...(summary as ContactSummary),
    consent: consent.map((e) => ({ list_id: e.listId, status: e.status, source: e.source, at: iso(e.at), detail: { ...e.detail } })),
  };
}

/** The account's lists named by `ids` (in the body's field `field`), or 404 naming the first that is not one. */
async function resolveLists(db: Executor, accountId: string, ids: readonly string[] | undefined, field: string): Promise<Result<MailingList[]>> {
  if (ids === undefined || ids.length === 0) return ok([]);
  const found = await findLists(db, accountId, ids);
  const missing = ids.findIndex((id) => !found.has(id));
  if (missing >= 0) return reject('notFound', { detail: `${field}[${missing}] is not a list of this account` });
  return ok([...new Set(ids)].flatMap((id) => found.get(id) ?? []));
}

/** Lists to join, ready: double opt-in needs the account's email service and a verified sender. */
async function joinsFor(deps: AppDeps, account: Account, lists: readonly MailingList[]): Promise<Result<ListJoin[]>> {
  if (lists.some((l) => l.optin === 'double') && !channelActive(account, 'email')) return reject('serviceInactive');
  return prepareJoins(deps.db, account.id, lists);
}

/**
 * The address of a contact's body, with the interface's texts, checked before the rest of
 * the body (the route runs it ahead of its schema: http/interface-checks.ts): a body that
 * is not an object (err 1), a missing or empty address, one that is not text, or the
 * wrong structure.
 */
export function contactBodyEmail(body: unknown, required: boolean): Result<string | undefined> {
  if (!isJsonObject(body)) return reject('invalidRequest1');
  const given = ownField(body, 'email');
  if (given === undefined && !required) return ok(undefined);
  if (given === undefined || given === null || (typeof given === 'string' && given.trim() === '')) return reject('suppressionEmailMissing');
  if (typeof given !== 'string') return invalid('email must be a string');
  const email = contactEmail(given);
  return email === null ? reject('suppressionEmailWrongStructure', { offending: [{ email: given }] }) : ok(email);
}

const wakeAfter = (deps: AppDeps, outcome: JoinOutcome): void => {
  if (outcome.queued > 0) deps.wakeOutbox();
  if (outcome.dropped > 0) deps.wakeWebhooks?.();
};

/** POST /v1/contacts — created (201) or updated (200), with its lists and consent; a test key's (`mode`) confirmation emails are test messages. */
export async function createAccountContact(
  deps: KeyDeps, account: Account, input: ContactCreate, mode: KeyMode = 'live',
): Promise<Result<{ view: ContactView; created: boolean }>> {
  const email = contactBodyEmail(input, true);
  if (!email.ok) return email;
  const problem = input.attributes === undefined ? undefined : attributesProblem(input.attributes);
  if (problem !== undefined) return invalid(problem);
  const lists = await resolveLists(deps.db, account.id, input.lists, 'lists');
  if (!lists.ok) return lists;
  const joins = await joinsFor(deps, account, lists.value);
  if (!joins.ok) return joins;

  const now = deps.clock();
  const maxContacts = (deps.quotas ?? DEFAULT_ACCOUNT_QUOTAS).maxContacts;
  const committed = await commitOrReject(deps.commit, async (tx) => {
    const [upserted] = await upsertContacts(tx, deps.newId, account.id, [{
      email: email.value as string,
      ...(input.name === undefined ? {} : { name: contactName(input.name) }),
      ...(input.attributes === undefined ? {} : { attributes: input.attributes }),
    }], now);
    if (upserted === undefined) throw new Error('upsert answered nothing');
    // A new contact is held to the account's quota (HERALD_ACCOUNT_MAX_CONTACTS), counted
    // in the transaction that adds it; an update of an existing one never is.
    if (upserted.created && (await countContacts(tx, account.id)) > maxContacts) {
      throw new RejectionError({ code: 'quotaExceeded', detail: contactQuotaText(maxContacts) });
    }
    const joined = await joinLists(tx, deps, account.id, [upserted.contact], joins.value, { source: 'api', detail: {}, now, mode });
    return { ...upserted, joined };
  });
  if (!committed.ok) return committed;
  wakeAfter(deps, committed.value.joined);
  return ok({ view: await contactView(deps.db, committed.value.contact), created: committed.value.created });
}

/** GET /v1/contacts/:contact_id */
export async function getAccountContact(deps: AppDeps, accountId: string, id: string): Promise<Result<ContactView>> {
  const contact = await findContact(deps.db, accountId, id);
  return contact === undefined ? reject('notFound') : ok(await contactView(deps.db, contact));
}

/**
 * PATCH /v1/contacts/:contact_id — fields given change; `lists` joins, `unsubscribe` leaves (source `api`).
 * `mode`: the caller's; a test key's confirmation emails are test messages.
 */
export async function patchAccountContact(deps: KeyDeps, account: Account, id: string, patch: ContactPatch, mode: KeyMode = 'live'): Promise<Result<ContactView>> {
  const email = contactBodyEmail(patch, false);
  if (!email.ok) return email;
  const problem = patch.attributes === undefined ? undefined : attributesProblem(patch.attributes);
  if (problem !== undefined) return invalid(problem);
  const both = (patch.lists ?? []).find((l) => (patch.unsubscribe ?? []).includes(l));
  if (both !== undefined) return invalid(`list ${both} is in both lists and unsubscribe`);
  if ((await findContact(deps.db, account.id, id)) === undefined) return reject('notFound');
  const joining = await resolveLists(deps.db, account.id, patch.lists, 'lists');
  if (!joining.ok) return joining;
  const leaving = await resolveLists(deps.db, account.id, patch.unsubscribe, 'unsubscribe');
  if (!leaving.ok) return leaving;
  const joins = await joinsFor(deps, account, joining.value);
  if (!joins.ok) return joins;

  const now = deps.clock();
  const committed = await commitOrReject(deps.commit, async (tx) => {
    const stored = await findContact(tx, account.id, id);
    if (stored === undefined) throw new RejectionError({ code: 'notFound' });
    let next = applyContactInput(stored, {
      email: stored.email,
      ...(patch.name === undefined ? {} : { name: contactName(patch.name) }),
      ...(patch.attributes === undefined ? {} : { attributes: patch.attributes }),
    }, now);
    if (email.value !== undefined && email.value !== stored.email) {
      const [holder] = await findContactsByEmail(tx, account.id, [email.value]);
      if (holder !== undefined) throw new RejectionError({ code: 'conflict', detail: 'another contact has this email' });
      next = { ...next, email: email.value, updatedAt: now };
    }
    if (next !== stored) await updateContact(tx, next);
    const joined = await joinLists(tx, deps, account.id, [next], joins.value, { source: 'api', detail: {}, now, mode });
    await leaveLists(tx, deps.newId, next.id, leaving.value, now);
    return joined;
  });
  if (!committed.ok) return committed;
  wakeAfter(deps, committed.value);
  return getAccountContact(deps, account.id, id);
}

/** Marks the contact's subscriptions to `lists` unsubscribed (source `api`); a list it is not on is left alone. */
async function leaveLists(tx: Executor, newId: () => string, contactId: string, lists: readonly MailingList[], now: number): Promise<void> {
  const changes = [];
  for (const list of lists) {
    const status = (await subscriptionStatuses(tx, list.id, [contactId])).get(contactId);
    if (status === undefined || status === 'unsubscribed') continue;
    changes.push({ id: newId(), contactId, listId: list.id, status: 'unsubscribed' as const, source: 'api' as const, at: now, detail: {} });
  }
  await changeSubscriptions(tx, changes);
}

/** Inbound emails of the person one erasure clears at most (the rest wait for the retention sweep). */
export const ERASED_INBOUND_MAX = 1000;

/**
 * DELETE /v1/contacts/:contact_id — erases the person: the contact, its attributes, its
 * subscriptions and its list consent history; its messages no longer point at it; what it
 * sent the account by email loses its text, fields and files (as the retention sweep does).
 * What the law asks to keep stays: the consent ledger's entries (proof of an opt-out), the
 * suppression list, and a contact that had unsubscribed from any list is added to it
 * (reason `unsubscribed`) so that no later import signs the address up again. Messages
 * already sent stay in the message log until retention. An audit row records the erasure
 * under a digest of the address, not the address (docs/campaigns.md, "Erasure").
 */
export async function deleteAccountContact(deps: AppDeps, accountId: string, id: string): Promise<Result<null>> {
  const now = deps.clock();
  const deleted = await deps.commit.run(async (tx) => {
    const contact = await findContact(tx, accountId, id);
    if (contact === undefined) return false;
    const subscriptions = (await subscriptionsOf(tx, [id])).get(id) ?? [];
    if (subscriptions.some((s) => s.status === 'unsubscribed')) {
      await addSuppression(tx, { accountId, address: contact.email, reason: 'unsubscribed', messageId: null, at: now });
    }
    await unlinkContactMessages(tx, accountId, id);
    await purgeInboundContent(tx, await inboundEmailFrom(tx, accountId, contact.email, ERASED_INBOUND_MAX));
    await recordErasure(tx, { id: deps.newId(), accountId, contactId: id, address: contact.email, at: now });
    return deleteContact(tx, accountId, id);
  });
  return deleted ? ok(null) : reject('notFound');
}

/** GET /v1/contacts?list_id=&email=&cursor=&limit= — in creation order, a page at a time. */
export async function listAccountContacts(deps: AppDeps, accountId: string, rawQuery: unknown): Promise<Result<ContactPage>> {
  // Fastify's query parser gives an object of its own class; empty parameters count as absent.
  const given = typeof rawQuery === 'object' && rawQuery !== null ? Object.entries(rawQuery).filter(([, v]) => v !== '') : [];
  const checked = checkValue(ContactQuerySchema, Object.fromEntries(given), '');
  if (!checked.ok) return checked;
  const query = checked.value;
  if (query.list_id !== undefined && (await findList(deps.db, accountId, query.list_id)) === undefined) return reject('notFound');
  const limit = query.limit === undefined ? DEFAULT_CONTACT_PAGE : Number(query.limit);
  const rows = await listContacts(deps.db, accountId, {
    limit: limit + 1,
    ...(query.list_id === undefined ? {} : { listId: query.list_id }),
    ...(query.email === undefined ? {} : { email: query.email.trim().toLowerCase() }),
    ...(query.cursor === undefined ? {} : { after: query.cursor }),
  });
  const shown = rows.slice(0, limit);
  return ok({ contacts: await summaries(deps.db, shown), next_cursor: rows.length > limit ? (shown.at(-1)?.id ?? null) : null });
}
