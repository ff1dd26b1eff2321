import { fieldsOf, invalidField, parseWebhookEvents, parseWebhookUrl } from '../domain/admin-input.ts';
import { EVENT_TYPES, type EventType } from '../domain/event-catalogue.ts';
import { ok, type Result } from '../domain/result.ts';
import type { Executor } from '../store/database.ts';
import {
  findWebhookSettings, rotateWebhookSecret, setWebhookTarget, type WebhookSettings,
} from '../store/webhook-settings.ts';
import { newWebhookSecret } from '../domain/webhook-secret.ts';
import { iso } from '../domain/wire-time.ts';
import type { AppDeps } from './deps.ts';
import { giveWebhookSecret } from './account-changes.ts';
import { forgetAccount } from './read-caches.ts';

// An account's webhook settings through its API key (GET/PUT /v1/webhooks, secret
// rotation) and the operator's view of them. The secret is made when a URL is first
// set, by giveWebhookSecret (account-changes.ts) and nowhere else, in the transaction that sets it
// (migration 0005 gave one to the older rows that lacked it): reads never write. After a
// rotation the previous secret keeps signing for ROTATION_OVERLAP_MS. An endpoint that
// answered 410 Gone is disabled (webhooks/retry-policy.ts) until the settings are saved again.

/** How long the previous secret keeps signing (a second signature) after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/**
 * Whether a URL may be posted to (http(s), every address it resolves to public unless
 * HERALD_FETCH_ALLOW_PRIVATE); the composition root gives the guard of channels/.
 */
export type WebhookUrlCheck = (url: string) => Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>;

export interface WebhookSettingsView {
  readonly url: string | null;
  /** null until a URL is first set. */
  readonly secret: string | null;
  /** The types posted: the account's filter, or every public type. */
  readonly events: readonly EventType[];
  /** When the endpoint was disabled (it answered 410 Gone); null while enabled. Saving the settings enables it again. */
  readonly disabled_at: string | null;
  /** Why it was disabled; null while enabled. */
  readonly disabled_reason: string | null;
}

export interface RotatedSecret {
  readonly secret: string;
  /** Until when the previous secret also signs; null when there was none. */
  readonly previous_secret_expires_at: string | null;
}

function view(settings: WebhookSettings): WebhookSettingsView {
  return {
    url: settings.url, secret: settings.secret, events: settings.events ?? EVENT_TYPES,
    disabled_at: settings.disabled === null ? null : iso(settings.disabled.at), disabled_reason: settings.disabled?.reason ?? null,
  };
}

async function settingsOf(db: Executor, accountId: string): Promise<WebhookSettings> {
  const settings = await findWebhookSettings(db, accountId);
  if (!settings) throw new Error(`account ${accountId} has no row`);
  return settings;
}

/** GET /v1/webhooks. */
export async function getWebhookSettings(deps: AppDeps, accountId: string): Promise<WebhookSettingsView> {
  return view(await settingsOf(deps.db, accountId));
}

/**
 * PUT /v1/webhooks `{url, events?}`: the URL (null: no webhooks) and the filter (absent
 * or null: every type). A URL that is not http(s), or whose host resolves to a private
 * or reserved address (unless allowed), is refused with 400; the first URL gets a secret.
 */
export async function putWebhookSettings(deps: AppDeps & { checkWebhookUrl: WebhookUrlCheck }, accountId: string, body: unknown): Promise<Result<WebhookSettingsView>> {
  const fields = fieldsOf(body, ['url', 'events']);
  if (!fields.ok) {
    // The secret is herald's to make; say where it comes from rather than "unknown field".
    if (fields.rejection.detail === 'secret: unknown field') return invalidField('secret', 'is made by herald; rotate it with POST /v1/webhooks/secret/rotate');
    return fields;
  }
  if (!Object.hasOwn(fields.value, 'url')) return invalidField('url', 'is required (null: no webhooks)');
  const url = parseWebhookUrl(fields.value.url, 'url');
  if (!url.ok) return url;
  const events = fields.value.events === undefined ? ok(null) : parseWebhookEvents(fields.value.events, 'events');
  if (!events.ok) return events;
  if (url.value !== null) {
    const check = await deps.checkWebhookUrl(url.value);
    if (!check.ok) return invalidField('url', check.reason);
  }
  const settings = await deps.db.transaction().execute(async (tx) => {
    await setWebhookTarget(tx, accountId, { url: url.value, events: events.value }, deps.clock());
    if (url.value !== null) await giveWebhookSecret(tx, accountId);
    return settingsOf(tx, accountId);
  });
  forgetAccount(deps, accountId);
  return ok(view(settings));
}

/**
 * POST /v1/webhooks/secret/rotate: a new secret, in force at once; the one it replaces
 * keeps signing, as a second signature, for 24 hours (one older than that is dropped).
 */
export async function rotateWebhookSecretOf(deps: AppDeps, accountId: string): Promise<RotatedSecret> {
  for (;;) {
    const current = await settingsOf(deps.db, accountId);
    const secret = newWebhookSecret();
    const previousUntil = deps.clock() + ROTATION_OVERLAP_MS;
    // Compare-and-set: a rotation that raced another one reads again and rotates once more.
    if (await rotateWebhookSecret(deps.db, accountId, { expected: current.secret, secret, previousUntil })) {
      return { secret, previous_secret_expires_at: current.secret === null ? null : iso(previousUntil) };
    }
  }
}

/** The operator's view of an account's webhook (the admin account body). */
export interface AccountWebhookFields {
  readonly webhookSecret: string | null;
  /** null: every type. */
  readonly webhookEvents: readonly EventType[] | null;
}

export async function accountWebhookFields(db: Executor, accountId: string): Promise<AccountWebhookFields> {
  const settings = await findWebhookSettings(db, accountId);
  return { webhookSecret: settings?.secret ?? null, webhookEvents: settings?.events ?? null };
}
