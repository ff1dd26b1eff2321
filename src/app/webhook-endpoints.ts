import { fieldsOf, invalidField, parseText, parseWebhookEvents, parseWebhookUrl } from '../domain/admin-input.ts';
import { EVENT_TYPES, type EventType } from '../domain/event-catalogue.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { newWebhookSecret } from '../domain/webhook-secret.ts';
import { iso } from '../domain/wire-time.ts';
import { updateAccount } from '../store/accounts.ts';
import type { Executor } from '../store/database.ts';
import {
  countWebhookEndpoints, deleteWebhookEndpoint, findWebhookEndpoint, insertWebhookEndpoint, listWebhookEndpoints,
  rotateWebhookEndpointSecret, updateWebhookEndpoint, type WebhookEndpoint,
} from '../store/webhook-endpoints.ts';
import { findWebhookDescription, findWebhookSettings, setFirstEndpointFields, type WebhookSettings } from '../store/webhook-settings.ts';
import { quotaExceeded } from './account-quotas.ts';
import { giveWebhookSecret } from './account-changes.ts';
import type { AppDeps } from './deps.ts';
import { forgetAccount } from './read-caches.ts';
import { ROTATION_OVERLAP_MS, rotateWebhookSecretOf, type RotatedSecret, type WebhookUrlCheck } from './webhook-settings.ts';

// An account's webhook endpoints (/v1/webhooks/endpoints): up to MAX_WEBHOOK_ENDPOINTS,
// each with its URL, description, filter, secret and enabled state. The first endpoint is
// the one of PUT /v1/webhooks, kept on the accounts row; here its id is the account's id.
// The others are rows of webhook_endpoints. docs/webhooks.md is the guide.

/** How many endpoints an account has at most, its first one included (docs/webhooks.md). */
export const MAX_WEBHOOK_ENDPOINTS = 20;
/** Longest description, in characters. */
export const DESCRIPTION_MAX = 200;
/** The reason kept with an endpoint the account disabled (PATCH {enabled:false}). */
export const DISABLED_BY_ACCOUNT = 'disabled by the account';

export interface WebhookEndpointView {
  readonly id: string;
  readonly url: string;
  readonly description: string | null;
  /** The types posted: the endpoint's filter, or every public type. */
  readonly event_types: readonly EventType[];
  /** The filter as set; null: every type. */
  readonly event_filter: readonly EventType[] | null;
  readonly secret: string;
  readonly enabled: boolean;
  readonly disabled_at: string | null;
  readonly disabled_reason: string | null;
  /** The endpoint of PUT /v1/webhooks (its id is the account's). */
  readonly first: boolean;
  /** null for the first endpoint. */
  readonly created_at: string | null;
}

/** Which endpoint an id names: the first (the accounts row) or another one. */
export type EndpointRef = { readonly kind: 'first'; readonly settings: WebhookSettings } | { readonly kind: 'other'; readonly endpoint: WebhookEndpoint };

function firstView(settings: WebhookSettings & { url: string }, description: string | null): WebhookEndpointView {
  return {
    id: settings.accountId, url: settings.url, description, event_types: settings.events ?? EVENT_TYPES, event_filter: settings.events,
    secret: settings.secret ?? '', enabled: settings.disabled === null,
    disabled_at: settings.disabled === null ? null : iso(settings.disabled.at), disabled_reason: settings.disabled?.reason ?? null,
    first: true, created_at: null,
  };
}

function otherView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id, url: endpoint.url, description: endpoint.description, event_types: endpoint.events ?? EVENT_TYPES, event_filter: endpoint.events,
    secret: endpoint.secret, enabled: endpoint.disabled === null,
    disabled_at: endpoint.disabled === null ? null : iso(endpoint.disabled.at), disabled_reason: endpoint.disabled?.reason ?? null,
    first: false, created_at: iso(endpoint.createdAt),
  };
}

const hasUrl = (settings: WebhookSettings | undefined): settings is WebhookSettings & { url: string } => settings !== undefined && settings.url !== null;

/** The endpoint `id` of the account; undefined when it has none by that id (another account's included). */
export async function resolveEndpoint(db: Executor, accountId: string, id: string): Promise<EndpointRef | undefined> {
  if (id === accountId) {
    const settings = await findWebhookSettings(db, accountId);
    return hasUrl(settings) ? { kind: 'first', settings } : undefined;
  }
  const endpoint = await findWebhookEndpoint(db, accountId, id);
  return endpoint && { kind: 'other', endpoint };
}

async function viewOf(db: Executor, accountId: string, id: string): Promise<WebhookEndpointView | undefined> {
  const ref = await resolveEndpoint(db, accountId, id);
  if (ref === undefined) return undefined;
  return ref.kind === 'other' ? otherView(ref.endpoint) : firstView(ref.settings as WebhookSettings & { url: string }, await findWebhookDescription(db, accountId));
}

async function countEndpoints(db: Executor, accountId: string): Promise<number> {
  return (hasUrl(await findWebhookSettings(db, accountId)) ? 1 : 0) + (await countWebhookEndpoints(db, accountId));
}

/** GET /v1/webhooks/endpoints: the first endpoint (when it has a URL), then the others, oldest first. */
export async function listEndpoints(deps: AppDeps, accountId: string): Promise<{ data: WebhookEndpointView[] }> {
  const settings = await findWebhookSettings(deps.db, accountId);
  const first = hasUrl(settings) ? [firstView(settings, await findWebhookDescription(deps.db, accountId))] : [];
  return { data: [...first, ...(await listWebhookEndpoints(deps.db, accountId)).map(otherView)] };
}

/** GET /v1/webhooks/endpoints/:id. */
export async function getEndpoint(deps: AppDeps, accountId: string, id: string): Promise<Result<WebhookEndpointView>> {
  const view = await viewOf(deps.db, accountId, id);
  return view === undefined ? reject('notFound') : ok(view);
}

type UrlDeps = AppDeps & { checkWebhookUrl: WebhookUrlCheck };

/** The fields of a POST or PATCH body, checked in the order given; `url` required on POST. */
async function endpointFields(deps: UrlDeps, body: unknown, creating: boolean): Promise<Result<{
  url?: string; description?: string | null; events?: readonly EventType[] | null; enabled?: boolean;
}>> {
  const fields = fieldsOf(body, creating ? ['url', 'description', 'event_types'] : ['url', 'description', 'event_types', 'enabled']);
  if (!fields.ok) {
    if (fields.rejection.detail === 'secret: unknown field') return invalidField('secret', 'is made by herald; rotate it with POST /v1/webhooks/endpoints/{id}/secret/rotate');
    return fields;
  }
  const { url, description, event_types: eventTypes, enabled } = fields.value;
  const out: { url?: string; description?: string | null; events?: readonly EventType[] | null; enabled?: boolean } = {};
  if (url !== undefined || creating) {
    const parsed = url === null || url === undefined ? invalidField('url', 'is required: an http(s) URL') : parseWebhookUrl(url, 'url');
    if (!parsed.ok) return parsed;
    if (parsed.value === null) return invalidField('url', 'is required: an http(s) URL');
    out.url = parsed.value;
  }
  if (description !== undefined) {
    if (description === null || description === '') out.description = null;
    else {
      const text = parseText(description, DESCRIPTION_MAX);
      if (text === null) return invalidField('description', `must be text of at most ${DESCRIPTION_MAX} characters without control characters (null: none)`);
      out.description = text;
    }
  }
  if (eventTypes !== undefined) {
    const events = parseWebhookEvents(eventTypes, 'event_types');
    if (!events.ok) return events;
    out.events = events.value;
  }
  if (enabled !== undefined) {
    if (typeof enabled !== 'boolean') return invalidField('enabled', 'must be true or false');
    out.enabled = enabled;
  }
  if (out.url !== undefined) {
    const check = await deps.checkWebhookUrl(out.url);
    if (!check.ok) return invalidField('url', check.reason);
  }
  return ok(out);
}

/**
 * POST /v1/webhooks/endpoints `{url, description?, event_types?}`: a new endpoint with its
 * own secret. An account without a first endpoint (no PUT /v1/webhooks URL) gets this one
 * as its first. Refused past MAX_WEBHOOK_ENDPOINTS.
 */
export async function createEndpoint(deps: UrlDeps, accountId: string, body: unknown): Promise<Result<WebhookEndpointView>> {
  const fields = await endpointFields(deps, body, true);
  if (!fields.ok) return fields;
  const { url = '', description = null, events = null } = fields.value;
  const now = deps.clock();
  const created = await deps.db.transaction().execute(async (tx): Promise<Result<string>> => {
    // Touching the account row first serialises its concurrent creations, so the cap holds on both engines.
    await updateAccount(tx, accountId, now, {});
    if ((await countEndpoints(tx, accountId)) >= MAX_WEBHOOK_ENDPOINTS) {
      return quotaExceeded(`an account has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints: delete one first`);
    }
    if (!hasUrl(await findWebhookSettings(tx, accountId))) {
      await setFirstEndpointFields(tx, accountId, { url, description, events, disabled: null }, now);
      await giveWebhookSecret(tx, accountId);
      return ok(accountId);
    }
    const id = deps.newId();
    await insertWebhookEndpoint(tx, { id, accountId, url, description, events, secret: newWebhookSecret(), now });
    return ok(id);
  });
  if (!created.ok) return created;
  forgetAccount(deps, accountId);
  return getEndpoint(deps, accountId, created.value);
}

/** PATCH /v1/webhooks/endpoints/:id `{url?, description?, event_types?, enabled?}`: only the fields given change. */
export async function updateEndpoint(deps: UrlDeps, accountId: string, id: string, body: unknown): Promise<Result<WebhookEndpointView>> {
  const ref = await resolveEndpoint(deps.db, accountId, id);
  if (ref === undefined) return reject('notFound');
  const fields = await endpointFields(deps, body, false);
  if (!fields.ok) return fields;
  const { enabled, ...rest } = fields.value;
  const now = deps.clock();
  const changes = { ...rest, ...(enabled === undefined ? {} : { disabled: enabled ? null : { at: now, reason: DISABLED_BY_ACCOUNT } }) };
  if (ref.kind === 'first') {
    await setFirstEndpointFields(deps.db, accountId, changes, now);
    forgetAccount(deps, accountId);
  } else if (!(await updateWebhookEndpoint(deps.db, accountId, id, changes, now))) {
    return reject('notFound');
  }
  return getEndpoint(deps, accountId, id);
}

/**
 * DELETE /v1/webhooks/endpoints/:id: another endpoint goes with its delivery log; the
 * first is emptied as PUT /v1/webhooks {url: null} does (its secret and log are kept).
 */
export async function deleteEndpoint(deps: AppDeps, accountId: string, id: string): Promise<Result<null>> {
  const ref = await resolveEndpoint(deps.db, accountId, id);
  if (ref === undefined) return reject('notFound');
  if (ref.kind === 'first') {
    await setFirstEndpointFields(deps.db, accountId, { url: null, description: null, events: null, disabled: null }, deps.clock());
    forgetAccount(deps, accountId);
    return ok(null);
  }
  const deleted = await deps.db.transaction().execute((tx) => deleteWebhookEndpoint(tx, accountId, id));
  return deleted ? ok(null) : reject('notFound');
}

/** POST /v1/webhooks/endpoints/:id/secret/rotate: as the first endpoint's rotation, the previous secret signing for 24 hours. */
export async function rotateEndpointSecret(deps: AppDeps, accountId: string, id: string): Promise<Result<RotatedSecret>> {
  const ref = await resolveEndpoint(deps.db, accountId, id);
  if (ref === undefined) return reject('notFound');
  if (ref.kind === 'first') return ok(await rotateWebhookSecretOf(deps, accountId));
  let current = ref.endpoint;
  for (;;) {
    const secret = newWebhookSecret();
    const previousUntil = deps.clock() + ROTATION_OVERLAP_MS;
    // Compare-and-set, as the first endpoint's rotation: a rotation that raced another reads again.
    if (await rotateWebhookEndpointSecret(deps.db, accountId, id, { expected: current.secret, secret, previousUntil })) {
      return ok({ secret, previous_secret_expires_at: iso(previousUntil) });
    }
    const latest = await findWebhookEndpoint(deps.db, accountId, id);
    if (latest === undefined) return reject('notFound');
    current = latest;
  }
}
