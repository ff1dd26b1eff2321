import { filterAccepts, type EventType } from '../domain/event-catalogue.ts';
import type { Executor } from './database.ts';

// An account's webhook endpoints after the first (the first stays on the accounts row:
// store/webhook-settings.ts). Each has its URL, filter, signing secret (with the previous
// one during a rotation) and disabled state. Always read and written scoped by account.

export interface WebhookEndpoint {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  readonly description: string | null;
  /** null: every public type. */
  readonly events: readonly EventType[] | null;
  readonly secret: string;
  readonly previousSecret: string | null;
  readonly previousSecretUntil: number | null;
  readonly disabled: { readonly at: number; readonly reason: string } | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const COLUMNS = [
  'id', 'account_id', 'url', 'description', 'events', 'secret', 'secret_previous', 'secret_previous_until',
  'disabled_at', 'disabled_reason', 'created_at', 'updated_at',
] as const;

type EndpointRow = {
  id: string; account_id: string; url: string; description: string | null; events: string | null; secret: string;
  secret_previous: string | null; secret_previous_until: number | null; disabled_at: number | null; disabled_reason: string | null;
  created_at: number; updated_at: number;
};

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id, accountId: row.account_id, url: row.url, description: row.description,
    events: row.events === null ? null : (JSON.parse(row.events) as EventType[]),
    secret: row.secret, previousSecret: row.secret_previous,
    previousSecretUntil: row.secret_previous_until === null ? null : Number(row.secret_previous_until),
    disabled: row.disabled_at === null ? null : { at: Number(row.disabled_at), reason: row.disabled_reason ?? '' },
    createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
  };
}

/** The account's endpoints, oldest first (bounded by the cap on how many an account has). */
export async function listWebhookEndpoints(db: Executor, accountId: string): Promise<WebhookEndpoint[]> {
  const rows = await db.selectFrom('webhook_endpoints').select(COLUMNS).where('account_id', '=', accountId).orderBy('id').execute();
  return rows.map(toEndpoint);
}

export async function countWebhookEndpoints(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number | string>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Scoped by account: another account's endpoint id finds nothing. */
export async function findWebhookEndpoint(db: Executor, accountId: string, id: string): Promise<WebhookEndpoint | undefined> {
  const row = await db.selectFrom('webhook_endpoints').select(COLUMNS).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toEndpoint(row);
}

/** Endpoints by id (the dispatcher reads those of a claimed batch). */
export async function findWebhookEndpointsById(db: Executor, ids: readonly string[]): Promise<Map<string, WebhookEndpoint>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('webhook_endpoints').select(COLUMNS).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((row) => [row.id, toEndpoint(row)]));
}

export async function insertWebhookEndpoint(
  db: Executor,
  endpoint: { readonly id: string; readonly accountId: string; readonly url: string; readonly description: string | null; readonly events: readonly EventType[] | null; readonly secret: string; readonly now: number },
): Promise<void> {
  await db.insertInto('webhook_endpoints').values({
    id: endpoint.id, account_id: endpoint.accountId, url: endpoint.url, description: endpoint.description,
    events: endpoint.events === null ? null : JSON.stringify(endpoint.events), secret: endpoint.secret,
    secret_previous: null, secret_previous_until: null, disabled_at: null, disabled_reason: null,
    created_at: endpoint.now, updated_at: endpoint.now,
  }).execute();
}

/** What a PATCH changes; `disabled` null enables, an object disables (unless already disabled: the first reason stays). */
export interface EndpointChanges {
  readonly url?: string;
  readonly description?: string | null;
  readonly events?: readonly EventType[] | null;
  readonly disabled?: { readonly at: number; readonly reason: string } | null;
}

/** False when the account has no such endpoint. */
export async function updateWebhookEndpoint(db: Executor, accountId: string, id: string, changes: EndpointChanges, now: number): Promise<boolean> {
  const columns: {
    url?: string; description?: string | null; events?: string | null; disabled_at?: number | null; disabled_reason?: string | null; updated_at: number;
  } = { updated_at: now };
  if (changes.url !== undefined) columns.url = changes.url;
  if (changes.description !== undefined) columns.description = changes.description;
  if (changes.events !== undefined) columns.events = changes.events === null ? null : JSON.stringify(changes.events);
  if (changes.disabled === null) Object.assign(columns, { disabled_at: null, disabled_reason: null });
  const result = await db.updateTable('webhook_endpoints').set(columns).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  if (changes.disabled !== undefined && changes.disabled !== null) {
    await db.updateTable('webhook_endpoints').set({ disabled_at: changes.disabled.at, disabled_reason: changes.disabled.reason })
      .where('id', '=', id).where('account_id', '=', accountId).where('disabled_at', 'is', null).execute();
  }
  return result.numUpdatedRows === 1n;
}

/**
 * Deletes the endpoint with its delivery log (attempts first: they refer to the
 * deliveries). False when the account has no such endpoint.
 */
export async function deleteWebhookEndpoint(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  if (result.numDeletedRows !== 1n) return false;
  const deliveries = db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id).where('account_id', '=', accountId);
  await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).where('account_id', '=', accountId).execute();
  return true;
}

/** As rotateWebhookSecret (webhook-settings.ts), for one endpoint: compare-and-set on the secret. */
export async function rotateWebhookEndpointSecret(
  db: Executor,
  accountId: string,
  id: string,
  rotation: { readonly expected: string; readonly secret: string; readonly previousUntil: number },
): Promise<boolean> {
  const result = await db.updateTable('webhook_endpoints')
    .set({ secret: rotation.secret, secret_previous: rotation.expected, secret_previous_until: rotation.previousUntil })
    .where('id', '=', id).where('account_id', '=', accountId).where('secret', '=', rotation.expected)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The enabled endpoints of an account as the producer needs them: where a new event goes. */
export async function enabledEndpointFilters(db: Executor, accountId: string): Promise<{ readonly id: string; readonly events: readonly EventType[] | null }[]> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'events'])
    .where('account_id', '=', accountId).where('disabled_at', 'is', null).orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, events: r.events === null ? null : (JSON.parse(r.events) as EventType[]) }));
}

/** The account's enabled endpoints (other than the first) whose filter takes an event of `type`. */
export async function acceptingEndpoints(db: Executor, accountId: string, type: EventType): Promise<{ readonly id: string }[]> {
  return (await enabledEndpointFilters(db, accountId)).filter((e) => filterAccepts(e.events, type));
}
