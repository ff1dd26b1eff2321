import type { EventType } from '../domain/event-catalogue.ts';
import type { Executor } from './database.ts';

// An account's webhook settings: where events go, which types, and the secrets that
// sign them. During a rotation the previous secret keeps signing until its deadline.

export interface WebhookSettings {
  readonly accountId: string;
  readonly url: string | null;
  /** null: every public type. */
  readonly events: readonly EventType[] | null;
  readonly secret: string | null;
  readonly previousSecret: string | null;
  readonly previousSecretUntil: number | null;
  /** Set when the endpoint answered 410 Gone; nothing is posted until the settings are saved again. */
  readonly disabled: { readonly at: number; readonly reason: string } | null;
}

type SettingsRow = {
  id: string; webhook_url: string | null; webhook_events: string | null; webhook_secret: string | null;
  webhook_secret_previous: string | null; webhook_secret_previous_until: number | null;
  webhook_disabled_at: number | null; webhook_disabled_reason: string | null;
};

const COLUMNS = [
  'id', 'webhook_url', 'webhook_events', 'webhook_secret', 'webhook_secret_previous', 'webhook_secret_previous_until',
  'webhook_disabled_at', 'webhook_disabled_reason',
] as const;

function toSettings(row: SettingsRow): WebhookSettings {
  return {
    accountId: row.id,
    url: row.webhook_url,
    events: row.webhook_events === null ? null : (JSON.parse(row.webhook_events) as EventType[]),
    secret: row.webhook_secret,
    previousSecret: row.webhook_secret_previous,
    previousSecretUntil: row.webhook_secret_previous_until === null ? null : Number(row.webhook_secret_previous_until),
    disabled: row.webhook_disabled_at === null ? null : { at: Number(row.webhook_disabled_at), reason: row.webhook_disabled_reason ?? '' },
  };
}

export async function findWebhookSettings(db: Executor, accountId: string): Promise<WebhookSettings | undefined> {
  const row = await db.selectFrom('accounts').select(COLUMNS).where('id', '=', accountId).executeTakeFirst();
  return row && toSettings(row);
}

/** The settings of several accounts at once (the dispatcher reads them per claimed batch). */
export async function findWebhookSettingsOf(db: Executor, accountIds: readonly string[]): Promise<Map<string, WebhookSettings>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db.selectFrom('accounts').select(COLUMNS).where('id', 'in', [...accountIds]).execute();
  return new Map(rows.map((row) => [row.id, toSettings(row)]));
}

/**
 * Sets the URL and the filter as given (either may be left out). Setting the URL (the
 * same or another) is saving the settings again: it enables a disabled endpoint.
 */
export async function setWebhookTarget(
  db: Executor,
  accountId: string,
  target: { readonly url?: string | null; readonly events?: readonly EventType[] | null },
  now: number,
): Promise<void> {
  const columns: {
    webhook_url?: string | null; webhook_events?: string | null; webhook_disabled_at?: null; webhook_disabled_reason?: null; updated_at: number;
  } = { updated_at: now };
  if (target.url !== undefined) Object.assign(columns, { webhook_url: target.url, webhook_disabled_at: null, webhook_disabled_reason: null });
  if (target.events !== undefined) columns.webhook_events = target.events === null ? null : JSON.stringify(target.events);
  await db.updateTable('accounts').set(columns).where('id', '=', accountId).execute();
}

/** Stores `secret` only when the account has none yet; whoever stored first wins. */
export async function setWebhookSecretIfMissing(db: Executor, accountId: string, secret: string): Promise<void> {
  await db.updateTable('accounts').set({ webhook_secret: secret }).where('id', '=', accountId).where('webhook_secret', 'is', null).execute();
}

/**
 * Replaces the secret `expected` with `secret`; `expected` keeps signing as the previous
 * secret until `previousUntil` (a previous secret older than that is dropped). False
 * when the secret changed in between (compare-and-set), so two rotations never lose one.
 */
export async function rotateWebhookSecret(
  db: Executor,
  accountId: string,
  rotation: { readonly expected: string | null; readonly secret: string; readonly previousUntil: number },
): Promise<boolean> {
  const { expected, secret, previousUntil } = rotation;
  const result = await db
    .updateTable('accounts')
    .set({
      webhook_secret: secret,
      webhook_secret_previous: expected,
      webhook_secret_previous_until: expected === null ? null : previousUntil,
    })
    .where('id', '=', accountId)
    .where((eb) => (expected === null ? eb('webhook_secret', 'is', null) : eb('webhook_secret', '=', expected)))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The first endpoint's description (the endpoints API; PUT /v1/webhooks leaves it alone). */
export async function findWebhookDescription(db: Executor, accountId: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('webhook_description').where('id', '=', accountId).executeTakeFirst();
  return row?.webhook_description ?? null;
}

/**
 * The first endpoint changed through the endpoints API (PATCH, DELETE): only the fields
 * given; `disabled` null enables, an object disables (a disabled endpoint keeps its first reason).
 */
export async function setFirstEndpointFields(
  db: Executor,
  accountId: string,
  changes: {
    readonly url?: string | null; readonly description?: string | null; readonly events?: readonly EventType[] | null;
    readonly disabled?: { readonly at: number; readonly reason: string } | null;
  },
  now: number,
): Promise<void> {
  const columns: {
    webhook_url?: string | null; webhook_description?: string | null; webhook_events?: string | null;
    webhook_disabled_at?: null; webhook_disabled_reason?: null; updated_at: number;
  } = { updated_at: now };
  if (changes.url !== undefined) columns.webhook_url = changes.url;
  if (changes.description !== undefined) columns.webhook_description = changes.description;
  if (changes.events !== undefined) columns.webhook_events = changes.events === null ? null : JSON.stringify(changes.events);
  if (changes.disabled === null) Object.assign(columns, { webhook_disabled_at: null, webhook_disabled_reason: null });
  await db.updateTable('accounts').set(columns).where('id', '=', accountId).execute();
  if (changes.disabled !== undefined && changes.disabled !== null) {
    await db.updateTable('accounts').set({ webhook_disabled_at: changes.disabled.at, webhook_disabled_reason: changes.disabled.reason })
      .where('id', '=', accountId).where('webhook_disabled_at', 'is', null).execute();
  }
}
