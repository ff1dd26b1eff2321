import { placesConfirmUrl } from '../campaigns/confirmation-email.ts';
import type { ListCreate, ListCreated, ListPatch, ListView } from '../campaigns/list-shapes.ts';
import { domainOf, parseAddress } from '../domain/email-address.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { findEmailTemplate } from '../store/email-templates.ts';
import {
  countLists, deleteList, findList, insertList, listLists, subscriberCounts, updateList, type MailingList, type SubscriberCounts,
} from '../store/lists.ts';
import { findSenderDomain } from '../store/sender-domains.ts';
import type { AppDeps } from './deps.ts';

// /v1/lists: an account's mailing lists. Bodies are checked by Fastify against the TypeBox
// shapes (campaigns/list-shapes.ts), then by the rules a shape cannot say: a double
// opt-in list needs a sender, of a verified domain; a confirmation template must exist
// and place {{confirm_url}}.

/** Most lists an account keeps: GET /v1/lists answers them all, with their counts. */
export const MAX_LISTS_PER_ACCOUNT = 1000;

const iso = (ms: number): string => new Date(ms).toISOString();
const invalid = (detail: string) => reject('invalidField', { detail });

export function listCreatedView(list: MailingList): ListCreated {
  return {
    list_id: list.id, name: list.name, optin: list.optin, description: list.description, from: list.from,
    confirmation_template_id: list.confirmationTemplateId, created_at: iso(list.createdAt),
  };
}

const listView = (list: MailingList, counts: SubscriberCounts | undefined): ListView =>
  ({ ...listCreatedView(list), subscribers: counts ?? { confirmed: 0, unconfirmed: 0, unsubscribed: 0 } });

/** The rules across fields, on the list as it would be stored. */
async function checkSettings(deps: AppDeps, list: MailingList): Promise<Result<null>> {
  if (list.optin === 'double' && list.from === null) return invalid('from is required for a double opt-in list: it sends the confirmation emails');
  if (list.from !== null) {
    if (parseAddress(list.from.email) === null) return reject('fromWrongStructure');
    const domain = await findSenderDomain(deps.db, list.accountId, domainOf(list.from.email));
    if (!domain?.verified) return reject('domainNotPermitted');
  }
  if (list.confirmationTemplateId !== null) {
    const template = await findEmailTemplate(deps.db, list.accountId, list.confirmationTemplateId);
    if (template === undefined) return reject('templateNotFound');
    if (!placesConfirmUrl(template.html)) return invalid('confirmation_template_id: the template\'s HTML must contain {{confirm_url}}');
  }
  return ok(null);
}

const trimmedSender = (from: { email: string; name: string } | null | undefined) =>
  from === null || from === undefined ? null : { email: from.email.trim(), name: from.name.trim() };

/** POST /v1/lists */
export async function createList(deps: AppDeps, accountId: string, input: ListCreate): Promise<Result<ListCreated>> {
  if (input.name.trim() === '') return invalid('name must be 1 to 200 characters');
  const now = deps.clock();
  const list: MailingList = {
    id: deps.newId(), accountId, name: input.name.trim(), optin: input.optin, description: input.description ?? null,
    from: trimmedSender(input.from), confirmationTemplateId: input.confirmation_template_id ?? null, createdAt: now, updatedAt: now,
  };
  const settings = await checkSettings(deps, list);
  if (!settings.ok) return settings;
  if ((await countLists(deps.db, accountId)) >= MAX_LISTS_PER_ACCOUNT) return invalid(`an account keeps at most ${MAX_LISTS_PER_ACCOUNT} lists`);
  await insertList(deps.db, list);
  return ok(listCreatedView(list));
}

/** GET /v1/lists — oldest first, each with its subscribers per status. */
export async function listAccountLists(deps: AppDeps, accountId: string): Promise<{ lists: ListView[] }> {
  const lists = await listLists(deps.db, accountId, MAX_LISTS_PER_ACCOUNT);
  const counts = await subscriberCounts(deps.db, lists.map((l) => l.id));
  return { lists: lists.map((l) => listView(l, counts.get(l.id))) };
}

/** GET /v1/lists/:list_id */
export async function getList(deps: AppDeps, accountId: string, id: string): Promise<Result<ListView>> {
  const list = await findList(deps.db, accountId, id);
  if (list === undefined) return reject('notFound');
  return ok(listView(list, (await subscriberCounts(deps.db, [list.id])).get(list.id)));
}

/** PATCH /v1/lists/:list_id — the fields given; a change of opt-in applies to subscriptions made afterwards. */
export async function patchList(deps: AppDeps, accountId: string, id: string, patch: ListPatch): Promise<Result<ListView>> {
  const list = await findList(deps.db, accountId, id);
  if (list === undefined) return reject('notFound');
  if (patch.name !== undefined && patch.name.trim() === '') return invalid('name must be 1 to 200 characters');
  const changed: MailingList = {
    ...list,
    ...(patch.name === undefined ? {} : { name: patch.name.trim() }),
    ...(patch.optin === undefined ? {} : { optin: patch.optin }),
    ...(patch.description === undefined ? {} : { description: patch.description }),
    ...(patch.from === undefined ? {} : { from: trimmedSender(patch.from) }),
    ...(patch.confirmation_template_id === undefined ? {} : { confirmationTemplateId: patch.confirmation_template_id }),
    updatedAt: deps.clock(),
  };
  const settings = await checkSettings(deps, changed);
  if (!settings.ok) return settings;
  if (!(await updateList(deps.db, changed))) return reject('notFound');
  return getList(deps, accountId, id);
}

/** DELETE /v1/lists/:list_id — the list and its subscriptions; the contacts stay. */
export async function removeList(deps: AppDeps, accountId: string, id: string): Promise<Result<null>> {
  return (await deleteList(deps.db, accountId, id)) ? ok(null) : reject('notFound');
}
