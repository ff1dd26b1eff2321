// Scopes on every /v1 route: the OpenAPI document's declarations against this file's
// table, then every operation of the document called with a key of each scope. A route
// added later is walked too, and fails the first test until the table names its scope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { SCOPES, type Scope } from '../../src/domain/access.ts';
import type { Service } from '../../src/service.ts';
import { up as grantWebhooksToAllChannelKeys } from '../../src/store/migrations/0004-route-scopes.ts';
import { emailBody, get, keyWithScopes, openAccount, post, smsBody, startService } from '../support/service.ts';

/** Route → `scope access`, decided by hand: the review of who may do what. */
const EXPECTED: Readonly<Record<string, string>> = {
  'POST /v1/email': 'email write',
  'POST /v1/sms/send': 'sms write',
  'POST /v1/whatsapp/sendTemplateMessage': 'whatsapp write',
  'POST /v1/whatsapp/sendMessage': 'whatsapp write',
  'GET /v1/messages': 'channel read',
  'GET /v1/messages/{msgid}': 'channel read',
  'GET /v1/messages/{msgid}/raw': 'channel read',
  'GET /v1/messages/{msgid}/preview': 'channel read',
  'GET /v1/email/templates': 'email read',
  'POST /v1/email/templates': 'email write',
  'GET /v1/email/templates/{template_id}': 'email read',
  'PUT /v1/email/templates/{template_id}': 'email write',
  'DELETE /v1/email/templates/{template_id}': 'email write',
  'POST /v1/email/templates/render': 'email read',
  'GET /v1/whatsapp/templates': 'whatsapp read',
  'GET /v1/domains': 'email read',
  'POST /v1/domains': 'email write',
  'GET /v1/domains/{domain}': 'email read',
  'POST /v1/domains/{domain}/verify': 'email write',
  'GET /v1/email/{msgid}/certificate': 'email read',
  'GET /v1/email/{msgid}/certificate.eml': 'email read',
  'GET /v1/suppressions': 'email read',
  'GET /v1/suppressions/export': 'email read',
  'POST /v1/suppressions': 'email write',
  'DELETE /v1/suppressions/{email}': 'email write',
  'GET /v1/webhooks': 'webhooks write',
  'PUT /v1/webhooks': 'webhooks write',
  'POST /v1/webhooks/secret/rotate': 'webhooks write',
  'GET /v1/webhooks/deliveries': 'webhooks read',
  'GET /v1/webhooks/deliveries/{id}': 'webhooks read',
  'POST /v1/webhooks/deliveries/{id}/retry': 'webhooks write',
  'POST /v1/webhooks/deliveries/retry-failed': 'webhooks write',
  'POST /v1/webhooks/test': 'webhooks write',
  'POST /v1/lists': 'email write',
  'GET /v1/lists': 'email read',
  'GET /v1/lists/{list_id}': 'email read',
  'PATCH /v1/lists/{list_id}': 'email write',
  'DELETE /v1/lists/{list_id}': 'email write',
  'POST /v1/contacts': 'email write',
  'GET /v1/contacts': 'email read',
  'GET /v1/contacts/{contact_id}': 'email read',
  'PATCH /v1/contacts/{contact_id}': 'email write',
  'DELETE /v1/contacts/{contact_id}': 'email write',
  'POST /v1/contacts/imports': 'email write',
  'GET /v1/contacts/imports/{import_id}': 'email read',
  'POST /v1/segments/count': 'email read',
  'POST /v1/campaigns': 'email write',
  'GET /v1/campaigns': 'email read',
  'GET /v1/campaigns/{campaign_id}': 'email read',
  'PATCH /v1/campaigns/{campaign_id}': 'email write',
  'DELETE /v1/campaigns/{campaign_id}': 'email write',
  'GET /v1/campaigns/{campaign_id}/quote': 'email read',
  'POST /v1/campaigns/{campaign_id}/send': 'email write',
  'POST /v1/campaigns/{campaign_id}/pause': 'email write',
  'POST /v1/campaigns/{campaign_id}/resume': 'email write',
  'POST /v1/campaigns/{campaign_id}/cancel': 'email write',
  'POST /v1/campaigns/{campaign_id}/test': 'email write',
  'POST /v1/campaigns/{campaign_id}/resend': 'email write',
  'GET /v1/campaigns/{campaign_id}/stats': 'email read',
  'GET /v1/campaigns/{campaign_id}/stats/timeline': 'email read',
  'GET /v1/campaigns/{campaign_id}/recipients': 'email read',
  'GET /v1/campaigns/tags/{name}/stats': 'email read',
  'GET /v1/users': 'account owner',
  'POST /v1/users': 'account owner',
  'PATCH /v1/users/{userId}': 'account owner',
  'DELETE /v1/users/{userId}': 'account owner',
  // A user's own session and settings: signed-in users only, never a key.
  'GET /v1/session': 'account read session',
  'POST /v1/auth/sign-out': 'account read session',
  'POST /v1/me/password': 'account read session',
  'POST /v1/me/sign-out-everywhere': 'account read session',
  'POST /v1/me/totp': 'account read session',
  'POST /v1/me/totp/confirm': 'account read session',
  'DELETE /v1/me/totp': 'account read session',
  // Before anyone is signed in: open to all, each bounded by its one-time token or throttle.
  'POST /v1/auth/sign-in': 'public',
  'POST /v1/auth/invitation': 'public',
  'POST /v1/auth/invitation/accept': 'public',
  'POST /v1/auth/password-reset': 'public',
  'POST /v1/auth/password-reset/complete': 'public',
  'GET /v1/account': 'account read',
  'PATCH /v1/account': 'account owner',
  'GET /v1/api-keys': 'account read',
  'POST /v1/api-keys': 'account write',
  'DELETE /v1/api-keys/{keyId}': 'account write',
  'GET /v1/usage': 'account read',
  'GET /v1/ledger': 'account read',
};

const NOT_AUTHORIZED = { message: 'API key not authorized.' };

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly scope: string | undefined;
  readonly access: string | undefined;
  readonly sessionOnly: boolean;
}

const declaration = (o: Operation): string => (o.scope === undefined ? 'public' : `${o.scope} ${o.access}${o.sessionOnly ? ' session' : ''}`);

async function operationsOf(service: Service): Promise<Operation[]> {
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const [method, operation] of Object.entries(item)) {
      operations.push({ method: method.toUpperCase(), path, scope: operation['x-herald-scope'] as string | undefined, access: operation['x-herald-access'] as string | undefined, sessionOnly: operation['x-herald-session-only'] === true });
    }
  }
  return operations;
}

/** An account with one email and one SMS message, and a key of each single scope. */
async function fixture(t: Parameters<typeof startService>[0]) {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 100 });
  const email = await post(service, '/v1/email', account.apiKey, emailBody());
  const sms = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  const messages = { email: email.json().to[0].msgid as string, sms: sms.json().messages[0].msgid as string };
  const keys = Object.fromEntries(await Promise.all(SCOPES.map(async (scope) => [scope, await keyWithScopes(service, account.id, [scope])] as const))) as Record<Scope, string>;
  return { service, account, messages, keys };
}

const PARAMS: Readonly<Record<string, string>> = {
  template_id: '01890000-0000-7000-8000-000000000000',
  domain: 'example.com',
  id: '01890000-0000-7000-8000-000000000001',
  email: 'nobody%40example.org',
};

function call(service: Service, operation: Operation, apiKey: string, msgid: string): Promise<LightMyRequestResponse> {
  const url = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'msgid' ? msgid : (PARAMS[name] ?? 'x')));
  const hasBody = operation.method === 'POST' || operation.method === 'PUT';
  return service.http.inject({
    method: operation.method as 'GET',
    url,
    headers: { authorization: `Bearer ${apiKey}`, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { payload: '{}' } : {}),
  });
}

const refused = (res: LightMyRequestResponse): boolean => res.statusCode === 401 && JSON.stringify(res.json()) === JSON.stringify(NOT_AUTHORIZED);

test('every /v1 operation of the OpenAPI document declares the scope and access of the table, and no other operation declares one', async (t) => {
  const service = await startService(t);
  const declared = Object.fromEntries(
    (await operationsOf(service)).filter((o) => o.scope !== undefined || o.path.startsWith('/v1/')).map((o) => [`${o.method} ${o.path}`, declaration(o)]),
  );
  assert.deepStrictEqual(declared, EXPECTED);
});

test('every /v1 operation of the OpenAPI document lets a single-scope key through exactly when it holds the declared scope', async (t) => {
  const { service, messages, keys } = await fixture(t);
  const operations = (await operationsOf(service)).filter((o) => o.scope !== undefined);
  for (const [channel, msgid] of Object.entries(messages)) {
    const expected: Record<string, Scope[]> = {};
    const actual: Record<string, Scope[]> = {};
    for (const operation of operations) {
      const name = `${operation.method} ${operation.path}`;
      // `channel`: a message route needs the message's own channel; the list, any channel.
      const pass = (scope: Scope): boolean => operation.sessionOnly ? false : operation.scope === 'channel'
        ? (operation.path.includes('{msgid}') ? scope === channel : ['email', 'sms', 'whatsapp'].includes(scope))
        : scope === operation.scope && (operation.access !== 'owner' || scope === 'account');
      expected[name] = SCOPES.filter(pass);
      actual[name] = [];
      for (const scope of SCOPES) {
        const res = await call(service, operation, keys[scope], msgid);
        assert.ok(res.statusCode < 500, `${name} with a ${scope} key answered ${res.statusCode}`);
        if (!refused(res)) actual[name].push(scope);
      }
    }
    assert.deepStrictEqual(actual, expected, `with the ${channel} message`);
  }
});

test('a scope refusal closes the connection and tells nothing else', async (t) => {
  const { service, keys } = await fixture(t);
  const res = await get(service, '/v1/webhooks', keys.email);
  assert.deepStrictEqual([res.statusCode, res.json(), res.headers.connection], [401, NOT_AUTHORIZED, 'close']);
});

test('a key lists only the messages of its channels, and asking for another channel is refused', async (t) => {
  const { service, messages, keys } = await fixture(t);
  const listed = await get(service, '/v1/messages', keys.sms);
  assert.deepStrictEqual(listed.json().data.map((m: { msgid: string }) => m.msgid), [messages.sms]);
  const other = await get(service, '/v1/messages?channel=email', keys.sms);
  assert.deepStrictEqual([other.statusCode, other.json()], [401, NOT_AUTHORIZED]);
  const own = await get(service, '/v1/messages?channel=sms', keys.sms);
  assert.deepStrictEqual(own.json().data.map((m: { msgid: string }) => m.msgid), [messages.sms]);
});

test('another account\'s message answers 404 whatever the scope', async (t) => {
  const { service, messages } = await fixture(t);
  const stranger = await openAccount(service);
  const res = await get(service, `/v1/messages/${messages.email}`, stranger.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
});

test('migration 0004 gives the webhooks scope to keys holding all three channels, and to no other key', async (t) => {
  const { service, account } = await fixture(t);
  const db = service.deps.db;
  const allChannels = await keyWithScopes(service, account.id, ['email', 'sms', 'whatsapp']);
  const twoChannels = await keyWithScopes(service, account.id, ['email', 'sms']);
  // Both as an older herald stored them: the channels only.
  assert.equal((await get(service, '/v1/webhooks', allChannels)).statusCode, 401);
  await grantWebhooksToAllChannelKeys(db as unknown as Parameters<typeof grantWebhooksToAllChannelKeys>[0]);
  // Keys are remembered for a few seconds after their last check; the store decides after that.
  service.deps.verifiedKeys?.evict((await db.selectFrom('api_keys').select('id').where('scopes', '=', 'email sms whatsapp webhooks').executeTakeFirstOrThrow()).id);
  const stored = await db.selectFrom('api_keys').select('scopes').where('account_id', '=', account.id).orderBy('id').execute();
  assert.deepStrictEqual(stored.map((row) => row.scopes).slice(-2), ['email sms whatsapp webhooks', 'email sms']);
  assert.equal((await get(service, '/v1/webhooks', allChannels)).statusCode, 200);
  assert.deepStrictEqual((await get(service, '/v1/webhooks', twoChannels)).json(), NOT_AUTHORIZED);
});
