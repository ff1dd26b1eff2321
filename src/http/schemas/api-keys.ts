// The account's API keys as /v1/api-keys shows and makes them.
import { Type, type Static } from '@sinclair/typebox';
import { SCOPES } from '../../domain/access.ts';
import { KEY_NAME_MAX, KEY_NAME_PROBLEM, trimmedTextPattern } from '../../domain/account-input.ts';
import { EXPIRY_PROBLEM, ISO_TIME, KEY_MODE_PROBLEM, SCOPES_PROBLEM } from '../../domain/admin-input.ts';
import { KEY_MODES } from '../../domain/key-mode.ts';
import { Id, Nullable, Timestamp } from './common.ts';

// The scopes, modes and name bound are domain/'s, which checks them (account-input.ts
// for /v1, admin-input.ts for the operator's camelCase body).
export const KeyScope = Type.Union(SCOPES.map((scope) => Type.Literal(scope)), {
  description: 'email, sms, whatsapp: send and read on the channel; webhooks: the webhook settings and log; account: keys, users, usage, ledger, allow-list',
});
export type KeyScope = Static<typeof KeyScope>;

export const KeyModeField = Type.Union(KEY_MODES.map((mode) => Type.Literal(mode)), {
  description: 'live, or test: a test key (it starts `test_`) sends through the capture transports whatever is configured, is never billed, and its messages are listed with `GET /v1/messages?mode=test` (docs/sandbox.md)',
});

export const ApiKeyView = Type.Object({
  key_id: Id('The key'),
  name: Type.String(),
  scopes: Type.Array(KeyScope),
  created_at: Timestamp(),
  expires_at: Nullable(Timestamp()),
  last_used_at: Nullable(Timestamp('Recorded at most once a minute')),
  last_used_ip: Nullable(Type.String()),
  revoked_at: Nullable(Timestamp()),
  mode: KeyModeField,
});
export type ApiKeyView = Static<typeof ApiKeyView>;

export const ApiKeyList = Type.Object({ api_keys: Type.Array(ApiKeyView, { description: 'Oldest first, revoked keys included' }) });
export type ApiKeyList = Static<typeof ApiKeyList>;

/**
 * POST /v1/api-keys, checked by Fastify and worded `<field>: <problem>` as it always was
 * (input-validation.ts); domain/account-input.ts refineNewOwnKey then trims the name, keeps
 * the scopes as a set and checks that the expiry is in the future.
 */
export const NewApiKeyRequest = Type.Object({
  name: Type.String({ pattern: trimmedTextPattern(KEY_NAME_MAX), errorMessage: KEY_NAME_PROBLEM, description: `1 to ${KEY_NAME_MAX} characters once trimmed, without control characters` }),
  scopes: Type.Array(KeyScope, { minItems: 1, errorMessage: SCOPES_PROBLEM, description: 'Repeats are dropped; answered in canonical order' }),
  expires_at: Type.Optional(Type.Union([Type.String({ pattern: ISO_TIME.source }), Type.Null()], {
    errorMessage: EXPIRY_PROBLEM, description: 'UTC, ISO-8601 with an offset, in the future; absent or null: never',
  })),
  mode: Type.Optional(Type.Union(KEY_MODES.map((mode) => Type.Literal(mode)), { errorMessage: KEY_MODE_PROBLEM, description: KeyModeField.description })),
}, { additionalProperties: false });
export type NewApiKeyRequest = Static<typeof NewApiKeyRequest>;

export const IssuedApiKey = Type.Object({
  key_id: Id('The key'),
  api_key: Type.String({ description: 'Shown this once; only its hash is stored' }),
  name: Type.String(),
  scopes: Type.Array(KeyScope),
  created_at: Timestamp(),
  expires_at: Nullable(Timestamp()),
  mode: KeyModeField,
});
export type IssuedApiKey = Static<typeof IssuedApiKey>;
