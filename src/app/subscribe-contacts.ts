import { renderConfirmation, type ConfirmationTemplate } from '../campaigns/confirmation-email.ts';
import { joinList, type ConsentSource } from '../campaigns/consent.ts';
import { mergeAttributes, type Attributes, type ContactInput } from '../campaigns/contact-fields.ts';
import { domainOf } from '../domain/email-address.ts';
import { CONFIRM_LINK_PLACEHOLDER, type EmailPayload } from '../domain/outbound.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { RejectionError, reject, type Result, ok } from '../domain/result.ts';
import { debitMessages } from '../store/accounts.ts';
import { findContactsByEmail, insertContacts, updateContact, type Contact } from '../store/contacts.ts';
import type { Executor, Tx } from '../store/database.ts';
import { findEmailTemplate } from '../store/email-templates.ts';
import { appendLedger } from '../store/ledger.ts';
import type { MailingList } from '../store/lists.ts';
import { insertSend } from '../store/messages.ts';
import { findSenderDomain } from '../store/sender-domains.ts';
import { changeSubscriptions, subscriptionStatuses, type ConsentEvent } from '../store/subscriptions.ts';
import { suppressedAmong } from '../store/suppressions.ts';
import type { KeyDeps } from './api-keys.ts';
import { costOf } from './send-charge.ts';

// The writes contacts and their consent share, for one contact (POST/PATCH
// /v1/contacts) or a batch of an import: upsert by address, then join lists by the
// consent rules (campaigns/consent.ts). A double opt-in list's new subscriptions get
// their confirmation email through herald's ordinary email path, in the same unit of
// work: a `sends` row, a message and its outbox row, the debit
// and its ledger entry (reason `email.confirmation`) — metered, billed and listed
// like any email; a suppressed address gets its message `dropped`, unbilled. Joined by a
// test key (or its import), the confirmations are test messages: captured, never billed
// (docs/sandbox.md).

export interface UpsertedContact {
  readonly contact: Contact;
  /** False for a contact that existed, or that an earlier input of the same batch created. */
  readonly created: boolean;
}

/** The contact with the input's name and attributes applied; the same object when nothing changes. */
export const applyContactInput = (contact: Contact, input: ContactInput, now: number): Contact => {
  const name = input.name === undefined ? contact.name : input.name;
  const attributes: Attributes = input.attributes === undefined ? contact.attributes : mergeAttributes(contact.attributes, input.attributes);
  const changed = name !== contact.name || JSON.stringify(attributes) !== JSON.stringify(contact.attributes);
  return changed ? { ...contact, name, attributes, updatedAt: now } : contact;
};

/** Creates or updates each input's contact, by address; answers one entry per input, in order. */
export async function upsertContacts(
  tx: Executor, newId: () => string, accountId: string, inputs: readonly ContactInput[], now: number,
): Promise<UpsertedContact[]> {
  const stored = new Map((await findContactsByEmail(tx, accountId, [...new Set(inputs.map((i) => i.email))])).map((c) => [c.email, c]));
  const current = new Map<string, Contact>();
  const created = new Set<string>();
  const outcomes = inputs.map((input) => {
    const before = current.get(input.email) ?? stored.get(input.email);
    if (before === undefined) created.add(input.email);
    current.set(input.email, applyContactInput(before ?? { id: newId(), accountId, email: input.email, name: null, attributes: {}, createdAt: now, updatedAt: now }, input, now));
    return { email: input.email, created: before === undefined };
  });
  await insertContacts(tx, [...created].flatMap((email) => current.get(email) ?? []));
  // An address that another request created meanwhile (PostgreSQL): this batch's inputs apply to that row.
  const existing = new Map(stored);
  if (created.size > 0) {
    for (const row of await findContactsByEmail(tx, accountId, [...created])) {
      if (row.id === current.get(row.email)?.id) continue;
      created.delete(row.email);
      existing.set(row.email, row);
      current.set(row.email, inputs.filter((i) => i.email === row.email).reduce<Contact>((c, i) => applyContactInput(c, i, now), row));
    }
  }
  for (const [email, before] of existing) {
    const after = current.get(email);
    if (after !== undefined && after !== before) await updateContact(tx, after);
  }
  return outcomes.map((o) => ({ contact: current.get(o.email) as Contact, created: o.created && created.has(o.email) }));
}

/** A list to join, with what its confirmation email needs (see prepareJoins). */
export interface ListJoin {
  readonly list: MailingList;
  /** The list's template, when it has one that still exists. */
  readonly template: ConfirmationTemplate | undefined;
}

/**
 * What joining `lists` needs, read before the unit of work: each double opt-in list's
 * template, and its sender's domain still verified (else the interface's
 * `Domain not permitted. err 2`).
 */
export async function prepareJoins(db: Executor, accountId: string, lists: readonly MailingList[]): Promise<Result<ListJoin[]>> {
  const joins: ListJoin[] = [];
  for (const list of lists) {
    if (list.optin === 'single' || list.from === null) {
      joins.push({ list, template: undefined });
      continue;
    }
    const domain = await findSenderDomain(db, accountId, domainOf(list.from.email));
    if (!domain?.verified) return reject('domainNotPermitted');
    // A template deleted since the list named it: herald's own text (docs/campaigns.md).
    const template = list.confirmationTemplateId === null ? undefined : await findEmailTemplate(db, accountId, list.confirmationTemplateId);
    joins.push({ list, template });
  }
  return ok(joins);
}

export interface JoinOutcome {
  /** Confirmation emails queued (billed, unless test messages). */
  readonly queued: number;
  /** Confirmation emails to suppressed addresses: stored `dropped`, not billed. */
  readonly dropped: number;
}

/**
 * Joins each contact to each list by the consent rules, recording every change with
 * `source` and `detail`, and queues the confirmation emails of double opt-in lists.
 * Throws RejectionError `noMessagesLeft` when the account cannot pay for them (the
 * unit of work rolls back whole).
 */
export async function joinLists(
  tx: Tx, deps: KeyDeps, accountId: string, contacts: readonly Contact[], joins: readonly ListJoin[],
  change: { readonly source: 'api' | 'import'; readonly detail: Readonly<Record<string, string>>; readonly now: number; readonly mode: KeyMode },
): Promise<JoinOutcome> {
  const { now, mode } = change;
  const events: ConsentEvent[] = [];
  const confirmations: { contact: Contact; join: ListJoin; msgid: string }[] = [];
  const unique = [...new Map(contacts.map((c) => [c.id, c])).values()];
  for (const join of joins) {
    const statuses = await subscriptionStatuses(tx, join.list.id, unique.map((c) => c.id));
    for (const contact of unique) {
      const joining = joinList(join.list.optin, statuses.get(contact.id), change.source);
      if (joining === undefined) continue;
      const detail: Record<string, string> = { ...change.detail };
      if (joining.sendConfirmation) {
        const msgid = deps.newId();
        detail['msgid'] = msgid;
        confirmations.push({ contact, join, msgid });
      }
      events.push({ id: deps.newId(), contactId: contact.id, listId: join.list.id, status: joining.status, source: change.source as ConsentSource, at: now, detail });
    }
  }
  await changeSubscriptions(tx, events);
  if (confirmations.length === 0) return { queued: 0, dropped: 0 };

  const suppressed = await suppressedAmong(tx, accountId, confirmations.map((c) => c.contact.email));
  let billed = 0;
  for (const { contact, join, msgid } of confirmations) {
    const dropped = suppressed.has(contact.email);
    if (!dropped) billed += 1;
    await queueConfirmation(tx, deps, { accountId, contact, join, msgid, dropped, now, mode });
  }
  if (billed > 0 && mode === 'live') {
    if (!(await debitMessages(tx, accountId, billed, now))) throw new RejectionError({ code: 'noMessagesLeft' });
    await appendLedger(tx, { id: deps.newId(), accountId, at: now, messagesDelta: -billed, balanceDelta: 0, reason: 'email.confirmation', sendId: null });
  }
  return { queued: billed, dropped: confirmations.length - billed };
}

async function queueConfirmation(
  tx: Tx, deps: KeyDeps,
  c: { accountId: string; contact: Contact; join: ListJoin; msgid: string; dropped: boolean; now: number; mode: KeyMode },
): Promise<void> {
  const { list, template } = c.join;
  if (list.from === null) throw new Error(`double opt-in list ${list.id} has no from address`);
  // The stored email, which members read, holds a placeholder; the token is signed only in
  // the copy a transport sends to the recipient (channels/email/compose.ts).
  const variables = {
    confirm_url: `${deps.publicUrl}/confirm/${CONFIRM_LINK_PLACEHOLDER}`, list_name: list.name, sender_name: list.from.name, email: c.contact.email, name: c.contact.name ?? '',
  };
  // A template that no longer renders (edited since) falls back to herald's text: consent must not wait on it.
  const rendered = renderConfirmation(deps.templates, template, variables);
  const content = rendered.ok ? rendered : renderConfirmation(deps.templates, undefined, variables);
  if (!content.ok) throw new Error('herald\'s confirmation email does not render');
  const payload: EmailPayload = {
    from: list.from, replyTo: list.from, subject: content.value.subject, html: content.value.html, text: content.value.text,
    to: [c.contact.email], cc: [], attachments: [], tracking: { opens: false, clicks: false }, certified: false,
    confirmation: { contactId: c.contact.id, listId: list.id },
  };
  await insertSend(tx, {
    id: deps.newId(), accountId: c.accountId, channel: 'email', payload, now: c.now, eventIds: deps.newId,
    options: {
      family: 'transactional', certified: false, tracking: { opens: false, clicks: false },
      metadata: { herald: 'list_confirmation', list_id: list.id, contact_id: c.contact.id }, mode: c.mode,
    },
  }, [{ id: c.msgid, recipient: c.contact.email, role: 'to', costMessages: c.dropped ? 0 : costOf(c.mode, 1), costBalance: 0, dropped: c.dropped }]);
}
