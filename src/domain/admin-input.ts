// Bodies of the operator API (/admin/v1) and the same fields from the CLI, declared
// once as TypeBox schemas: Fastify checks a route's body with them before its handler
// runs (http/input-validation.ts, through domain/schema-check.ts), the CLI checks its
// flags with the same schemas (checkOperatorInput), the OpenAPI document shows them, and
// the types derive from them. What a schema cannot say (a CIDR's validity, money's 4
// decimals, a URL's scheme, an expiry in the future, fields that exclude each other) is
// checked after it by the refine* functions here, which also turn the fields into domain
// terms. Every failure is `invalidField` with a detail `<field>: <what is wrong>`;
// unknown fields are refused, so a typo such as `messages_left` cannot be silently ignored.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ALL_SCOPES, SCOPES, type Scope } from './access.ts';
import { ALLOW_LIST_APPLIES_TO, type AllowListAppliesTo, type Channel } from './account.ts';
import { EVENT_TYPES, isEventType, type EventType } from './event-catalogue.ts';
import { parseAddress } from './email-address.ts';
import { normaliseAllowList, parseAllowList } from './ip-allow-list.ts';
import { KEY_MODES, type KeyMode } from './key-mode.ts';
import { isJsonObject, ownField } from './json-object.ts';
import { parseMoney, type Minor } from './money.ts';
import { ok, type Result } from './result.ts';
import { checkBody, OPERATOR_API_STYLE } from './schema-check.ts';
import { parseSmsSenders, SMS_SENDERS_MAX } from './sms-sender.ts';

import { ACCOUNT_NAME_MAX } from './text-limits.ts';

export { ACCOUNT_NAME_MAX };
export const RATE_LIMIT_MAX = 100_000;
const WEBHOOK_URL_MAX = 2048;

const NAME_PROBLEM = `must be 1 to ${ACCOUNT_NAME_MAX} characters, without control characters`;
const MONEY_PROBLEM = 'must be an amount of at least 0 with at most 4 decimals, e.g. 10.50';
const FLAG_PROBLEM = 'must be true or false';
const EVENTS_PROBLEM = `must be null (every type) or a non-empty array of event types: ${EVENT_TYPES.join(', ')}`;
const URL_PROBLEM = 'must be null or an http(s) URL';
export const SCOPES_PROBLEM = `must be a non-empty array of ${SCOPES.map((c) => `"${c}"`).join(', ')}`;
export const KEY_MODE_PROBLEM = 'must be "live" or "test"';
export const EXPIRY_PROBLEM = 'must be an ISO-8601 time with an offset, e.g. 2030-01-31T00:00:00Z';

// Control characters (C0, DEL, C1) would garble the CLI's table and logs; a name is not only spaces.
const CONTROL = /\p{Cc}/u;
const NAME_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$';
// Meta's phone number ids are decimal digits (15–17 today); a token is printable
// ASCII without spaces (it goes into an Authorization header as is).
const PHONE_NUMBER_ID = '^[0-9]{1,32}$';
const ACCESS_TOKEN = '^[\\x21-\\x7e]{1,4096}$';

const Nullable = <T extends TSchema>(schema: T, options: { errorMessage: string; description?: string }) => Type.Union([schema, Type.Null()], options);
const Flag = (description?: string) => Type.Boolean({ errorMessage: FLAG_PROBLEM, ...(description === undefined ? {} : { description }) });
const Money = (description: string) => Type.Union([Type.Number(), Type.String()], { errorMessage: MONEY_PROBLEM, description: `${description}; 4 decimals at most` });

const Name = Type.String({ minLength: 1, maxLength: ACCOUNT_NAME_MAX, pattern: NAME_PATTERN, errorMessage: NAME_PROBLEM });

/** Fields shared by account creation and update, as the operator API takes them. */
const accountFields = {
  name: Type.Optional(Name),
  active: Type.Optional(Flag('false: every send is refused with `current service is not active`')),
  messagesLeft: Type.Optional(Type.Integer({
    minimum: 0, maximum: Number.MAX_SAFE_INTEGER, errorMessage: 'must be a whole number of at least 0',
    description: 'Prepaid messages (email and SMS); the change is written to the ledger',
  })),
  balance: Type.Optional(Money('Money for WhatsApp sends (number or decimal string); the change is written to the ledger')),
  whatsappPrice: Type.Optional(Money('Price of one WhatsApp message')),
  rateLimitPerSecond: Type.Optional(Type.Integer({ minimum: 1, maximum: RATE_LIMIT_MAX, errorMessage: `must be a whole number from 1 to ${RATE_LIMIT_MAX}` })),
  // Each entry is read by parseAllowList, which names the one that is not an address or CIDR.
  ipAllowList: Type.Optional(Type.Array(Type.Unknown({ description: 'An IPv4/IPv6 address or CIDR range, as a string' }), {
    errorMessage: 'must be an array of strings', description: 'IPv4/IPv6 addresses and CIDR ranges; empty: any address. Stored in canonical form: `10.0.0.1/8` as `10.0.0.0/8`',
  })),
  allowListAppliesTo: Type.Optional(Type.Union(ALLOW_LIST_APPLIES_TO.map((v) => Type.Literal(v)), {
    errorMessage: 'must be "keys" or "all"',
    description: 'Whom the IP allow-list binds: `all` (default), API keys and the web application\'s sessions; `keys`, API keys only (docs/users-and-sessions.md)',
  })),
  services: Type.Optional(Type.Object({ email: Type.Optional(Flag()), sms: Type.Optional(Flag()), whatsapp: Type.Optional(Flag()) }, {
    additionalProperties: false, errorMessage: 'must be an object with email, sms and whatsapp set to true or false', description: 'Per-channel switch',
  })),
  webhookUrl: Type.Optional(Nullable(Type.String({ maxLength: WEBHOOK_URL_MAX }), {
    errorMessage: URL_PROBLEM,
    description: 'http(s) URL that receives events; null: none. Setting one makes the signing secret if there is none, and enables an endpoint disabled by a 410',
  })),
  webhookEvents: Type.Optional(Nullable(Type.Array(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))), { minItems: 1 }), {
    errorMessage: EVENTS_PROBLEM, description: 'The event types posted to the webhook URL; null: every type (docs/webhooks.md)',
  })),
  whatsappPhoneNumberId: Type.Optional(Nullable(Type.String({ pattern: PHONE_NUMBER_ID }), {
    errorMessage: 'must be null or the Cloud API phone number id, a string of digits', description: 'Cloud API phone number id; null removes it',
  })),
  whatsappBusinessAccountId: Type.Optional(Nullable(Type.String({ pattern: PHONE_NUMBER_ID }), {
    errorMessage: 'must be null or the WhatsApp Business account id, a string of digits',
    description: 'WhatsApp Business account (WABA) id: templates the account creates are submitted there for approval; null removes it',
  })),
  whatsappAccessToken: Type.Optional(Nullable(Type.String({ pattern: ACCESS_TOKEN }), {
    errorMessage: 'must be null or a Cloud API access token: 1 to 4096 printable ASCII characters without spaces',
    description: 'Cloud API access token, write-only; null removes it',
  })),
  // Each entry is read by parseSmsSenders, which names the one that is not a sender.
  smsSenders: Type.Optional(Nullable(Type.Array(Type.String({
    description: 'A long number (`+` and 8 to 15 digits), a short code (3 to 8 digits) or an alphanumeric sender id (1 to 11 letters, digits and inner spaces, with a letter)',
  }), { maxItems: SMS_SENDERS_MAX }), {
    errorMessage: `must be null or an array of at most ${SMS_SENDERS_MAX} strings`,
    description: 'The SMS senders of the account, the first the default; a send may name another with `from`. Null or [] clears them: '
      + 'SMS then go from the transport\'s own sender (docs/sms-senders.md)',
  })),
  tracking: Type.Optional(Type.Object({ opens: Type.Optional(Flag()), clicks: Type.Optional(Flag()) }, {
    additionalProperties: false, errorMessage: 'must be an object with opens and clicks set to true or false',
    description: 'Open and click tracking of HTML email when a send does not say (default both true); either may be left out',
  })),
};

/** POST /admin/v1/accounts. */
export const NewAccountBody = Type.Object({ ...accountFields, name: Name }, { additionalProperties: false });
export type NewAccountBody = Static<typeof NewAccountBody>;

/** PATCH /admin/v1/accounts/:id: absolute values and top-ups, all optional. */
export const AccountUpdateBody = Type.Object({
  ...accountFields,
  addMessages: Type.Optional(Type.Integer({
    minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER,
    errorMessage: 'must be a whole number (negative to remove messages)', description: 'Messages to add, negative to remove; not with messagesLeft',
  })),
  addBalance: Type.Optional(Type.Union([Type.Number(), Type.String()], {
    errorMessage: 'must be an amount with at most 4 decimals (negative to remove money)', description: 'Money to add, negative to remove; not with balance',
  })),
}, { additionalProperties: false });
export type AccountUpdateBody = Static<typeof AccountUpdateBody>;

/** POST /admin/v1/accounts/:id/api-keys. */
export const NewApiKeyBody = Type.Object({
  name: Type.Optional(Type.String({ ...Name, description: 'What the account calls the key, e.g. where it is used; default none' })),
  scopes: Type.Optional(Type.Array(Type.Union(SCOPES.map((c) => Type.Literal(c))), { minItems: 1, errorMessage: SCOPES_PROBLEM, description: 'Default: every scope' })),
  expiresAt: Type.Optional(Nullable(Type.String(), { errorMessage: EXPIRY_PROBLEM, description: 'UTC, ISO-8601 with an offset, in the future; default: never' })),
  mode: Type.Optional(Type.Union(KEY_MODES.map((m) => Type.Literal(m)), {
    errorMessage: KEY_MODE_PROBLEM,
    description: 'live (default) or test: a test key (prefixed `test_`) sends through the capture transports, unbilled (docs/sandbox.md)',
  })),
}, { additionalProperties: false });
export type NewApiKeyBody = Static<typeof NewApiKeyBody>;

/** POST /admin/v1/accounts/:id/domains. */
export const NewSenderDomainBody = Type.Object({
  domain: Type.String({ errorMessage: 'must be a host name with a dot, e.g. example.com', description: 'Host name; stored lower-cased' }),
  verified: Type.Optional(Flag('Mark verified by hand, without DNS (default false)')),
}, { additionalProperties: false });
export type NewSenderDomainBody = Static<typeof NewSenderDomainBody>;

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
  readonly allowListAppliesTo?: AllowListAppliesTo;
  readonly services?: Partial<Record<Channel, boolean>>;
  readonly webhookUrl?: string | null;
  /** The event types posted to the webhook URL; null: every type. */
  readonly webhookEvents?: readonly EventType[] | null;
  /** Cloud API phone number id; null removes it. */
  readonly whatsappPhoneNumberId?: string | null;
  /** Cloud API access token, write-only; null removes it. */
  readonly whatsappAccessToken?: string | null;
  /** WhatsApp Business account id (template submission); null removes it. */
  readonly whatsappBusinessAccountId?: string | null;
  /** Open and click tracking of HTML email, unless a send says otherwise; either may be left out. */
  readonly tracking?: { readonly opens?: boolean; readonly clicks?: boolean };
  /** The SMS senders, the first the default; null clears them. */
  readonly smsSenders?: readonly string[] | null;
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
  readonly name?: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number | null;
  readonly mode: KeyMode;
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
 * as `{}`. For the account API's own bodies that are not declared as schemas yet
 * (PUT /v1/webhooks, a sender domain).
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

/** A trimmed, non-empty string of at most `max` characters without control characters. */
export function parseText(value: unknown, max: number): string | null {
  if (typeof value !== 'string' || CONTROL.test(value)) return null;
  const text = value.trim();
  return text === '' || text.length > max ? null : text;
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
  return invalidField(field, URL_PROBLEM);
}

/** An event filter: null (every type) or a non-empty array of public event types, kept in catalogue order without repeats. */
export function parseWebhookEvents(value: unknown, field = 'webhookEvents'): Result<readonly EventType[] | null> {
  if (value === null) return ok(null);
  if (!Array.isArray(value) || value.length === 0 || !value.every(isEventType)) return invalidField(field, EVENTS_PROBLEM);
  const wanted = new Set<unknown>(value);
  return ok(EVENT_TYPES.filter((type) => wanted.has(type)));
}

/** A body of the operator API checked against its schema, for callers that are not its route (the CLI). */
export function checkOperatorInput<S extends TSchema>(schema: S, body: unknown): Result<Static<S>> {
  return checkBody(schema, body, OPERATOR_API_STYLE);
}

/** The account fields of a checked body in domain terms; what its schema cannot say is checked here, in field order. */
function refineAccountFields(body: Omit<AccountUpdateBody, 'addMessages' | 'addBalance'>): Result<AccountInput> {
  const { name, balance, whatsappPrice, ipAllowList, webhookUrl, webhookEvents, smsSenders, ...plain } = body;
  const input: { -readonly [K in keyof AccountInput]: AccountInput[K] } = { ...plain };
  if (name !== undefined) input.name = name.trim();
  for (const [key, value] of [['balance', balance], ['whatsappPrice', whatsappPrice]] as const) {
    if (value === undefined) continue;
    const amount = parseMoney(value);
    if (amount === null) return invalidField(key, MONEY_PROBLEM);
    input[key] = amount;
  }
  if (ipAllowList !== undefined) {
    const list = parseAllowList(ipAllowList);
    if (!list.ok) return list;
    input.ipAllowList = normaliseAllowList(list.value);
  }
  if (webhookUrl !== undefined) {
    const url = parseWebhookUrl(webhookUrl);
    if (!url.ok) return url;
    input.webhookUrl = url.value;
  }
  if (webhookEvents !== undefined) {
    const events = parseWebhookEvents(webhookEvents);
    if (!events.ok) return events;
    input.webhookEvents = events.value;
  }
  if (smsSenders !== undefined) {
    const senders = parseSmsSenders(smsSenders);
    if (!senders.ok) return senders;
    input.smsSenders = senders.value;
  }
  return ok(input);
}

/** POST /admin/v1/accounts, after its schema. */
export function refineNewAccount(body: NewAccountBody): Result<NewAccountInput> {
  const input = refineAccountFields(body);
  return input.ok ? ok({ ...input.value, name: body.name.trim() }) : input;
}

/** POST /admin/v1/accounts from a caller that is not its route (the CLI). */
export function parseNewAccount(body: unknown): Result<NewAccountInput> {
  const checked = checkOperatorInput(NewAccountBody, body);
  return checked.ok ? refineNewAccount(checked.value) : checked;
}

/** PATCH /admin/v1/accounts/:id from a caller that is not its route (the CLI). */
export function parseAccountUpdate(body: unknown): Result<AccountUpdateInput> {
  const checked = checkOperatorInput(AccountUpdateBody, body);
  return checked.ok ? refineAccountUpdate(checked.value) : checked;
}

/** PATCH /admin/v1/accounts/:id, after its schema. */
export function refineAccountUpdate(body: AccountUpdateBody): Result<AccountUpdateInput> {
  const { addMessages, addBalance, ...fields } = body;
  const input = refineAccountFields(fields);
  if (!input.ok) return input;
  const update: { -readonly [K in keyof AccountUpdateInput]: AccountUpdateInput[K] } = { ...input.value };
  if (addMessages !== undefined) {
    // Setting and adding at once has no single obvious order; refuse rather than guess.
    if (update.messagesLeft !== undefined) return invalidField('addMessages', 'cannot be combined with messagesLeft');
    update.addMessages = addMessages;
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

/** POST /admin/v1/accounts/:id/api-keys, after its schema; `now` decides whether expiresAt is in the future. */
export function refineNewApiKey(body: NewApiKeyBody, now: number): Result<NewApiKeyInput> {
  const { name, scopes, expiresAt, mode } = body;
  const trimmed = name === undefined ? undefined : parseText(name, ACCOUNT_NAME_MAX);
  if (trimmed === null) return invalidField('name', NAME_PROBLEM);
  // Canonical order, duplicates dropped: the scopes are a set.
  const parsedScopes: readonly Scope[] = scopes === undefined ? ALL_SCOPES : SCOPES.filter((c) => scopes.includes(c));
  const expiry = parseExpiry(expiresAt, 'expiresAt', now);
  if (!expiry.ok) return expiry;
  return ok({ ...(trimmed === undefined ? {} : { name: trimmed }), scopes: parsedScopes, expiresAt: expiry.value, mode: mode ?? 'live' });
}

/** POST /admin/v1/accounts/:id/api-keys from a caller that is not its route (the CLI). */
export function parseNewApiKey(body: unknown, now: number): Result<NewApiKeyInput> {
  const checked = checkOperatorInput(NewApiKeyBody, body);
  return checked.ok ? refineNewApiKey(checked.value, now) : checked;
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

/** POST /admin/v1/accounts/:id/domains, after its schema. */
export function refineNewSenderDomain(body: NewSenderDomainBody): Result<NewSenderDomainInput> {
  const domain = parseSenderDomain(body.domain);
  if (domain === null) return invalidField('domain', 'must be a host name with a dot, e.g. example.com');
  return ok({ domain, verified: body.verified ?? false });
}

/** POST /admin/v1/accounts/:id/domains from a caller that is not its route (the CLI). */
export function parseNewSenderDomain(body: unknown): Result<NewSenderDomainInput> {
  const checked = checkOperatorInput(NewSenderDomainBody, body);
  return checked.ok ? refineNewSenderDomain(checked.value) : checked;
}

/** A key's expiry: absent or null (never), or an ISO-8601 time with an offset, in the future. */
export function parseExpiry(value: unknown, field: string, now: number): Result<number | null> {
  if (value === undefined || value === null) return ok(null);
  const at = typeof value === 'string' && ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) return invalidField(field, EXPIRY_PROBLEM);
  if (at <= now) return invalidField(field, 'must be in the future');
  return ok(at);
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
