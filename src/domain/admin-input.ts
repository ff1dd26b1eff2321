// Bodies of the operator API (/admin/v1) and the same fields from the CLI, checked
// here so both say the same thing. Every failure is `invalidField` with a detail
// `<field>: <what is wrong>`; unknown fields are refused, so a typo such as
// `messages_left` cannot be silently ignored.
import { ALL_SCOPES, isScope, SCOPES, type Scope } from './access.ts';
import { CHANNELS, type Channel } from './account.ts';
import { EVENT_TYPES, isEventType, type EventType } from './event-catalogue.ts';
import { parseAddress } from './email-address.ts';
import { normaliseAllowList, parseAllowList } from './ip-allow-list.ts';
import { isJsonObject, ownField } from './json-object.ts';
import { parseMoney, type Minor } from './money.ts';
import { ok, type Result } from './result.ts';

export const ACCOUNT_NAME_MAX = 200;
export const RATE_LIMIT_MAX = 100_000;

/** Fields shared by account creation and update, already in domain terms. */
export interface AccountInput {
  readonly name?: string;
  readonly active?: boolean;
  readonly messagesLeft?: number;
  readonly balance?: Minor;
  readonly whatsappPrice?: Minor;
  readonly rateLimitPerSecond?: number;
  /** Canonical text (normaliseAllowList). */
  readonly ipAllowList?: readonly string[];
  readonly services?: Partial<Record<Channel, boolean>>;
  readonly webhookUrl?: string | null;
  /** The event types posted to the webhook URL; null: every type. */
  readonly webhookEvents?: readonly EventType[] | null;
  /** Cloud API phone number id; null removes it. */
  readonly whatsappPhoneNumberId?: string | null;
  /** Cloud API access token, write-only; null removes it. */
  readonly whatsappAccessToken?: string | null;
  /** Open and click tracking of HTML email, unless a send says otherwise; either may be left out. */
  readonly tracking?: { readonly opens?: boolean; readonly clicks?: boolean };
}

export interface NewAccountInput extends AccountInput {
  readonly name: string;
}

export interface AccountUpdateInput extends AccountInput {
  /** Messages to add (negative: remove), through the ledger. */
  readonly addMessages?: number;
  /** Money to add (negative: remove), through the ledger. */
  readonly addBalance?: Minor;
}

export interface NewApiKeyInput {
  readonly scopes: readonly Scope[];
  readonly expiresAt: number | null;
}

export interface NewSenderDomainInput {
  readonly domain: string;
  readonly verified: boolean;
}

type Fields = Record<string, unknown>;

/** The `invalidField` rejection with its `<field>: <problem>` detail. */
export function invalidField(field: string, problem: string): { ok: false; rejection: { code: 'invalidField'; detail: string } } {
  return { ok: false, rejection: { code: 'invalidField', detail: `${field}: ${problem}` } };
}

/**
 * The body's own fields, all of them in `allowed`, copied into a prototype-less
 * object so a polluted Object.prototype can never supply one. No body at all counts
 * as `{}`, so a POST without content (only defaults wanted) is accepted.
 */
export function fieldsOf(body: unknown, allowed: readonly string[], prefix = ''): Result<Fields> {
  const source = body === undefined ? {} : body;
  if (!isJsonObject(source)) return invalidField(prefix === '' ? 'body' : prefix.slice(0, -1), 'must be a JSON object');
  const fields: Fields = Object.create(null) as Fields;
  for (const key of Object.keys(source)) {
    if (!allowed.includes(key)) return invalidField(`${prefix}${key}`, 'unknown field');
    fields[key] = ownField(source, key);
  }
  return ok(fields);
}

// Control characters (C0, DEL, C1) would garble the CLI's table and logs.
const CONTROL = /\p{Cc}/u;

/** A trimmed, non-empty string of at most `max` characters without control characters. */
export function parseText(value: unknown, max: number): string | null {
  if (typeof value !== 'string' || CONTROL.test(value)) return null;
  const text = value.trim();
  return text === '' || text.length > max ? null : text;
}

const ACCOUNT_FIELDS = ['name', 'active', 'messagesLeft', 'balance', 'whatsappPrice', 'rateLimitPerSecond', 'ipAllowList', 'services', 'webhookUrl', 'webhookEvents',
  'whatsappPhoneNumberId', 'whatsappAccessToken', 'tracking'] as const;
const TOP_UP_FIELDS = ['addMessages', 'addBalance'] as const;

const WEBHOOK_URL_MAX = 2048;

// Meta's phone number ids are decimal digits (15–17 today); a token is printable
// ASCII without spaces (it goes into an Authorization header as is).
const PHONE_NUMBER_ID = /^[0-9]{1,32}$/;
const ACCESS_TOKEN = /^[\x21-\x7e]{1,4096}$/;

function parseWhatsappCredentialFields(fields: Fields): Result<Pick<AccountInput, 'whatsappPhoneNumberId' | 'whatsappAccessToken'>> {
  const input: { whatsappPhoneNumberId?: string | null; whatsappAccessToken?: string | null } = {};
  if (Object.hasOwn(fields, 'whatsappPhoneNumberId')) {
    const id = fields.whatsappPhoneNumberId;
    if (id !== null && (typeof id !== 'string' || !PHONE_NUMBER_ID.test(id))) {
      return invalidField('whatsappPhoneNumberId', 'must be null or the Cloud API phone number id, a string of digits');
    }
    input.whatsappPhoneNumberId = id;
  }
  if (Object.hasOwn(fields, 'whatsappAccessToken')) {
    const token = fields.whatsappAccessToken;
    // The detail never repeats the value: it is a secret.
    if (token !== null && (typeof token !== 'string' || !ACCESS_TOKEN.test(token))) {
      return invalidField('whatsappAccessToken', 'must be null or a Cloud API access token: 1 to 4096 printable ASCII characters without spaces');
    }
    input.whatsappAccessToken = token;
  }
  return ok(input);
}

/** A webhook URL (null: none); `field` names it in the detail (`webhookUrl` here, `url` in /v1/webhooks). */
export function parseWebhookUrl(value: unknown, field = 'webhookUrl'): Result<string | null> {
  if (value === null) return ok(null);
  if (typeof value === 'string' && value.length <= WEBHOOK_URL_MAX && URL.canParse(value)) {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') {
      // Never posted to (the guard refuses them): receivers authenticate herald by its signature.
      if (url.username !== '' || url.password !== '') return invalidField(field, 'must not carry credentials (user:password@)');
      return ok(url.href);
    }
  }
  return invalidField(field, 'must be null or an http(s) URL');
}

/** An event filter: null (every type) or a non-empty array of public event types, kept in catalogue order without repeats. */
export function parseWebhookEvents(value: unknown, field = 'webhookEvents'): Result<readonly EventType[] | null> {
  if (value === null) return ok(null);
  if (!Array.isArray(value) || value.length === 0 || !value.every(isEventType)) {
    return invalidField(field, `must be null (every type) or a non-empty array of event types: ${EVENT_TYPES.join(', ')}`);
  }
  const wanted = new Set<unknown>(value);
  return ok(EVENT_TYPES.filter((type) => wanted.has(type)));
}

function parseServices(value: unknown): Result<Partial<Record<Channel, boolean>>> {
  if (!isJsonObject(value)) return invalidField('services', 'must be an object with email, sms and whatsapp set to true or false');
  const fields = fieldsOf(value, CHANNELS, 'services.');
  if (!fields.ok) return fields;
  const services: Partial<Record<Channel, boolean>> = {};
  for (const channel of CHANNELS) {
    const flag = fields.value[channel];
    if (flag === undefined) continue;
    if (typeof flag !== 'boolean') return invalidField(`services.${channel}`, 'must be true or false');
    services[channel] = flag;
  }
  return ok(services);
}

function parseTracking(value: unknown): Result<{ opens?: boolean; clicks?: boolean }> {
  if (!isJsonObject(value)) return invalidField('tracking', 'must be an object with opens and clicks set to true or false');
  const fields = fieldsOf(value, ['opens', 'clicks'], 'tracking.');
  if (!fields.ok) return fields;
  const tracking: { opens?: boolean; clicks?: boolean } = {};
  for (const key of ['opens', 'clicks'] as const) {
    const flag = fields.value[key];
    if (flag === undefined) continue;
    if (typeof flag !== 'boolean') return invalidField(`tracking.${key}`, 'must be true or false');
    tracking[key] = flag;
  }
  return ok(tracking);
}

const MONEY_PROBLEM = 'must be an amount of at least 0 with at most 4 decimals, e.g. 10.50';

/** The account fields present in `fields`, checked in a fixed order so the first problem reported is stable. */
function parseAccountFields(fields: Fields): Result<AccountInput> {
  const input: { -readonly [K in keyof AccountInput]: AccountInput[K] } = {};
  const has = (key: string): boolean => fields[key] !== undefined;

  if (has('name')) {
    const name = parseText(fields.name, ACCOUNT_NAME_MAX);
    if (name === null) return invalidField('name', `must be 1 to ${ACCOUNT_NAME_MAX} characters, without control characters`);
    input.name = name;
  }
  if (has('active')) {
    if (typeof fields.active !== 'boolean') return invalidField('active', 'must be true or false');
    input.active = fields.active;
  }
  if (has('messagesLeft')) {
    const n = fields.messagesLeft;
    if (!Number.isSafeInteger(n) || (n as number) < 0) return invalidField('messagesLeft', 'must be a whole number of at least 0');
    input.messagesLeft = n as number;
  }
  for (const key of ['balance', 'whatsappPrice'] as const) {
    if (!has(key)) continue;
    const amount = parseMoney(fields[key]);
    if (amount === null) return invalidField(key, MONEY_PROBLEM);
    input[key] = amount;
  }
  if (has('rateLimitPerSecond')) {
    const n = fields.rateLimitPerSecond;
    if (!Number.isSafeInteger(n) || (n as number) < 1 || (n as number) > RATE_LIMIT_MAX) {
      return invalidField('rateLimitPerSecond', `must be a whole number from 1 to ${RATE_LIMIT_MAX}`);
    }
    input.rateLimitPerSecond = n as number;
  }
  if (has('ipAllowList')) {
    const list = parseAllowList(fields.ipAllowList);
    if (!list.ok) return list;
    input.ipAllowList = normaliseAllowList(list.value);
  }
  if (has('services')) {
    const services = parseServices(fields.services);
    if (!services.ok) return services;
    input.services = services.value;
  }
  // `null` is a value here (no webhooks), so test for presence rather than `has`.
  if (Object.hasOwn(fields, 'webhookUrl')) {
    const url = parseWebhookUrl(fields.webhookUrl);
    if (!url.ok) return url;
    input.webhookUrl = url.value;
  }
  if (Object.hasOwn(fields, 'webhookEvents')) {
    const events = parseWebhookEvents(fields.webhookEvents);
    if (!events.ok) return events;
    input.webhookEvents = events.value;
  }
  if (has('tracking')) {
    const tracking = parseTracking(fields.tracking);
    if (!tracking.ok) return tracking;
    input.tracking = tracking.value;
  }
  const whatsapp = parseWhatsappCredentialFields(fields);
  if (!whatsapp.ok) return whatsapp;
  return ok({ ...input, ...whatsapp.value });
}

/** POST /admin/v1/accounts. */
export function parseNewAccount(body: unknown): Result<NewAccountInput> {
  const fields = fieldsOf(body, ACCOUNT_FIELDS);
  if (!fields.ok) return fields;
  if (fields.value.name === undefined) return invalidField('name', 'is required');
  const input = parseAccountFields(fields.value);
  if (!input.ok) return input;
  const { name } = input.value;
  return name === undefined ? invalidField('name', 'is required') : ok({ ...input.value, name });
}

/** PATCH /admin/v1/accounts/:id: absolute values and top-ups, all optional. */
export function parseAccountUpdate(body: unknown): Result<AccountUpdateInput> {
  const fields = fieldsOf(body, [...ACCOUNT_FIELDS, ...TOP_UP_FIELDS]);
  if (!fields.ok) return fields;
  const input = parseAccountFields(fields.value);
  if (!input.ok) return input;
  const update: { -readonly [K in keyof AccountUpdateInput]: AccountUpdateInput[K] } = { ...input.value };

  const { addMessages, addBalance } = fields.value;
  if (addMessages !== undefined) {
    if (!Number.isSafeInteger(addMessages)) return invalidField('addMessages', 'must be a whole number (negative to remove messages)');
    // Setting and adding at once has no single obvious order; refuse rather than guess.
    if (update.messagesLeft !== undefined) return invalidField('addMessages', 'cannot be combined with messagesLeft');
    update.addMessages = addMessages as number;
  }
  if (addBalance !== undefined) {
    const amount = parseMoney(addBalance, { allowNegative: true });
    if (amount === null) return invalidField('addBalance', 'must be an amount with at most 4 decimals (negative to remove money)');
    if (update.balance !== undefined) return invalidField('addBalance', 'cannot be combined with balance');
    update.addBalance = amount;
  }
  return ok(update);
}

// Offset required: a time without one means different instants on different machines.
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** POST /admin/v1/accounts/:id/api-keys; `now` decides whether expiresAt is in the future. */
export function parseNewApiKey(body: unknown, now: number): Result<NewApiKeyInput> {
  const fields = fieldsOf(body, ['scopes', 'expiresAt']);
  if (!fields.ok) return fields;
  const { scopes, expiresAt } = fields.value;

  let parsedScopes: readonly Scope[] = ALL_SCOPES;
  if (scopes !== undefined) {
    const problem = `must be a non-empty array of ${SCOPES.map((c) => `"${c}"`).join(', ')}`;
    if (!Array.isArray(scopes) || scopes.length === 0) return invalidField('scopes', problem);
    const wanted = new Set<unknown>(scopes);
    if ([...wanted].some((s) => !isScope(s))) return invalidField('scopes', problem);
    // Canonical order, duplicates dropped: the scopes are a set.
    parsedScopes = SCOPES.filter((c) => wanted.has(c));
  }

  const expiry = parseExpiry(expiresAt, 'expiresAt', now);
  return expiry.ok ? ok({ scopes: parsedScopes, expiresAt: expiry.value }) : expiry;
}

/** A key's expiry: absent or null (never), or an ISO-8601 time with an offset, in the future. */
export function parseExpiry(value: unknown, field: string, now: number): Result<number | null> {
  if (value === undefined || value === null) return ok(null);
  const at = typeof value === 'string' && ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) return invalidField(field, 'must be an ISO-8601 time with an offset, e.g. 2030-01-31T00:00:00Z');
  if (at <= now) return invalidField(field, 'must be in the future');
  return ok(at);
}

/**
 * A sender domain is whatever can follow the `@` of a From address the email
 * route accepts, lower-cased as the route looks it up; reusing the address parser
 * keeps the two rules from drifting apart.
 */
export function parseSenderDomain(value: unknown): string | null {
  if (typeof value !== 'string' || value.includes('@')) return null;
  const address = parseAddress(`postmaster@${value}`);
  return address === null || address !== `postmaster@${value}` ? null : value.toLowerCase();
}

/** POST /admin/v1/accounts/:id/domains. */
export function parseNewSenderDomain(body: unknown): Result<NewSenderDomainInput> {
  const fields = fieldsOf(body, ['domain', 'verified']);
  if (!fields.ok) return fields;
  const { domain, verified } = fields.value;
  if (domain === undefined) return invalidField('domain', 'is required');
  const parsed = parseSenderDomain(domain);
  if (parsed === null) return invalidField('domain', 'must be a host name with a dot, e.g. example.com');
  if (verified !== undefined && typeof verified !== 'boolean') return invalidField('verified', 'must be true or false');
  return ok({ domain: parsed, verified: verified ?? false });
}

export const TOP_UP_REASON_MAX = 500;

export interface TopUpInput {
  readonly messages: number;
  readonly balance: Minor;
  readonly reason: string;
}

/** POST /admin/v1/accounts/:id/top-ups: `{messages?, balance?, reason}`, at least one amount not zero. */
export function parseTopUp(body: unknown): Result<TopUpInput> {
  const fields = fieldsOf(body, ['messages', 'balance', 'reason']);
  if (!fields.ok) return fields;
  const { messages = 0, balance = 0, reason } = fields.value;
  if (!Number.isSafeInteger(messages)) return invalidField('messages', 'must be a whole number (negative to remove messages)');
  const amount = parseMoney(balance, { allowNegative: true });
  if (amount === null) return invalidField('balance', 'must be an amount with at most 4 decimals (negative to remove money)');
  const text = parseText(reason, TOP_UP_REASON_MAX);
  if (text === null) return invalidField('reason', `must be 1 to ${TOP_UP_REASON_MAX} characters, without control characters: it goes into the ledger`);
  if (messages === 0 && amount === 0) return invalidField('messages', 'give messages, balance or both, not zero');
  return ok({ messages: messages as number, balance: amount, reason: text });
}
