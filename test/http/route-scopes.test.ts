// Scopes on every /v1 route: the OpenAPI document's declarations against this file's
// table, then every operation of the document called with a key of each scope. A route
// added later is walked too, and fails the first test until the table names its scope.
// Then the test-key walk: every operation of the document called by a test key holding
// every scope, against a world of live things, changes none of them (docs/sandbox.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { SCOPES, type Scope } from '../../src/domain/access.ts';
import type { Service } from '../../src/service.ts';
import { up as grantWebhooksToAllChannelKeys } from '../../src/store/migrations/0004-route-scopes.ts';
import { addWhatsappTemplate, emailBody, get, issueKey, keyWithScopes, openAccount, post, smsBody, startService } from '../support/service.ts';
import { campaignBody } from '../support/campaigns.ts';
import { startRealPeers } from '../support/real-peers.ts';

/** Route → `scope access`, decided by hand: the review of who may do what. */
const EXPECTED: Readonly<Record<string, string>> = {
  'POST /v1/email': 'email write',
  'POST /v1/sms/send': 'sms write',
  'POST /v1/email/batch': 'email write',
  'POST /v1/sms/batch': 'sms write',
  'POST /v1/whatsapp/sendTemplateMessage': 'whatsapp write',
  'POST /v1/whatsapp/sendMessage': 'whatsapp write',
  'GET /v1/messages': 'channel read',
  'GET /v1/conversations': 'channel read',
  'GET /v1/conversations/{person}': 'channel read',
  'GET /v1/messages/{msgid}': 'channel read',
  'GET /v1/messages/{msgid}/raw': 'channel read',
  'GET /v1/messages/{msgid}/preview': 'channel read',
  'DELETE /v1/messages/{msgid}/schedule': 'channel write',
  'PATCH /v1/messages/{msgid}/schedule': 'channel write',
  'GET /v1/inbound': 'channel read',
  'GET /v1/inbound/{id}': 'channel read',
  'GET /v1/inbound/{id}/raw': 'channel read',
  'GET /v1/inbound/{id}/attachments/{attachmentId}': 'channel read',
  'POST /v1/sandbox/inbound': 'channel write',
  'GET /v1/consent': 'channel read',
  'GET /v1/consent/export': 'channel read',
  'POST /v1/consent': 'channel write',
  'GET /v1/sms/keywords': 'sms read',
  'PUT /v1/sms/keywords': 'sms write',
  'GET /v1/email/templates': 'email read',
  'POST /v1/email/templates': 'email write',
  'GET /v1/email/templates/{template_id}': 'email read',
  'PUT /v1/email/templates/{template_id}': 'email write',
  'DELETE /v1/email/templates/{template_id}': 'email write',
  'POST /v1/email/templates/render': 'email read',
  'GET /v1/whatsapp/templates': 'whatsapp read',
  'POST /v1/whatsapp/templates': 'whatsapp write',
  'GET /v1/domains': 'email read',
  'POST /v1/domains': 'email write',
  'GET /v1/domains/{domain}': 'email read',
  'POST /v1/domains/{domain}/verify': 'email write',
  'DELETE /v1/domains/{domain}': 'email write',
  'GET /v1/receiving-domains': 'email read',
  'POST /v1/receiving-domains': 'email write',
  'GET /v1/receiving-domains/{id}': 'email read',
  'POST /v1/receiving-domains/{id}/verify': 'email write',
  'PUT /v1/receiving-domains/{id}/rules': 'email write',
  'DELETE /v1/receiving-domains/{id}': 'email write',
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
  'GET /v1/webhooks/endpoints': 'webhooks write',
  'POST /v1/webhooks/endpoints': 'webhooks write',
  'GET /v1/webhooks/endpoints/{id}': 'webhooks write',
  'PATCH /v1/webhooks/endpoints/{id}': 'webhooks write',
  'DELETE /v1/webhooks/endpoints/{id}': 'webhooks write',
  'POST /v1/webhooks/endpoints/{id}/secret/rotate': 'webhooks write',
  'POST /v1/webhooks/endpoints/{id}/test': 'webhooks write',
  'GET /v1/webhooks/endpoints/{id}/deliveries': 'webhooks read',
  'POST /v1/webhooks/endpoints/{id}/deliveries/retry-failed': 'webhooks write',
  'POST /v1/lists': 'email write',
  'GET /v1/lists': 'email read',
  'GET /v1/lists/{list_id}': 'email read',
  'PATCH /v1/lists/{list_id}': 'email write',
  'DELETE /v1/lists/{list_id}': 'email write',
  'GET /v1/segments': 'email read',
  'POST /v1/segments': 'email write',
  'GET /v1/segments/{segment_id}': 'email read',
  'PUT /v1/segments/{segment_id}': 'email write',
  'DELETE /v1/segments/{segment_id}': 'email write',
  'POST /v1/contacts': 'email write',
  'GET /v1/contacts': 'email read',
  'GET /v1/contacts/export': 'email read',
  'GET /v1/contacts/{contact_id}': 'email read',
  'PATCH /v1/contacts/{contact_id}': 'email write',
  'DELETE /v1/contacts/{contact_id}': 'email write',
  'POST /v1/contacts/imports': 'email write',
  'GET /v1/contacts/imports/{import_id}': 'email read',
  'POST /v1/segments/count': 'email read',
  'POST /v1/segments/sample': 'email read',
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
  'PATCH /v1/me': 'account read session',
  'POST /v1/me/password': 'account read session',
  'POST /v1/me/sign-out-everywhere': 'account read session',
  'POST /v1/me/totp': 'account read session',
  'POST /v1/me/totp/confirm': 'account read session',
  'DELETE /v1/me/totp': 'account read session',
  'GET /v1/events/stream': 'account read session',
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
  // A key's request log: owners and developers, as making and revoking keys.
  'GET /v1/api-keys/{keyId}/requests': 'account write',
  'GET /v1/usage': 'account read',
  'GET /v1/ledger': 'account read',
  // The server's SMTP submission settings: every key of the account, whatever its scopes.
  'GET /v1/smtp-settings': 'any read',
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
  // Every operation is called with six keys in quick succession: far above the interface's rate.
  const account = await openAccount(service, { messagesLeft: 100, rateLimitPerSecond: 100_000 });
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
      // `channel`: a message route needs the message's own channel; the list, any channel. `any`: every key.
      const pass = (scope: Scope): boolean => operation.sessionOnly ? false : operation.scope === 'any' ? true : operation.scope === 'channel'
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

// ---- The test-key walk ----

/** The live things the walk must leave as they were: keys, money, campaigns, settings, users, live messages, a suppression. */
async function liveState(service: Service, accountId: string) {
  const db = service.deps.db;
  return {
    account: await db.selectFrom('accounts').selectAll().where('id', '=', accountId).execute(),
    liveKeys: await db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('mode', '=', 'live').orderBy('id').execute(),
    ledger: await db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
    liveCampaigns: await db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).where('mode', '=', 'live').orderBy('id').execute(),
    liveMessages: await db.selectFrom('messages').select(['id', 'status', 'cost_messages', 'cost_balance']).where('account_id', '=', accountId).where('mode', '=', 'live').orderBy('id').execute(),
    senderDomains: await db.selectFrom('sender_domains').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
    receivingDomains: await db.selectFrom('receiving_domains').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
    users: await db.selectFrom('users').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
    invitations: await db.selectFrom('user_links').selectAll().orderBy('token_hash').execute(),
    suppressed: await db.selectFrom('suppressions').select('address').where('account_id', '=', accountId).where('address', '=', 'kept@example.org').execute(),
  };
}

/** What each write is sent in the walk: what a live key would get its way with. */
function walkBodies(ids: { list: string; whatsappTemplate: string; doubleList: string }): Readonly<Record<string, unknown>> {
  return {
    'POST /v1/api-keys': { name: 'escape', scopes: [...SCOPES], mode: 'live' },
    'PATCH /v1/account': { ip_allow_list: ['192.0.2.1'], tracking: { opens: false, clicks: false } },
    'PUT /v1/webhooks': { url: 'https://hooks.example.org/herald' },
    'POST /v1/webhooks/endpoints': { url: 'https://hooks.example.org/escape' },
    'PATCH /v1/webhooks/endpoints/{id}': { enabled: false },
    'POST /v1/domains': { domain: 'mail.example.net' },
    'POST /v1/receiving-domains': { domain: 'in.example.net' },
    'POST /v1/users': { email: 'eve@example.org', role: 'owner' },
    'PATCH /v1/users/{userId}': { role: 'viewer' },
    'POST /v1/email': emailBody(),
    'POST /v1/sms/send': smsBody(),
    'POST /v1/whatsapp/sendTemplateMessage': { destination: '+5215512345678', templateId: ids.whatsappTemplate, params: ['Ana', '1234'] },
    'POST /v1/contacts': { email: 'new@example.org', lists: [ids.doubleList] },
    'POST /v1/campaigns': campaignBody([ids.list]),
    'PATCH /v1/campaigns/{campaign_id}': { name: 'Hijacked', send_at: null },
    'POST /v1/campaigns/{campaign_id}/test': { emails: ['qa@example.org'] },
    'POST /v1/campaigns/{campaign_id}/resend': { to: 'not_opened' },
    'POST /v1/suppressions': { email: 'added@example.org' },
  };
}

test('every operation of the OpenAPI document, called by a test key holding every scope, mints no live key, sends nothing for real, debits nothing, changes no live campaign and no setting', async (t) => {
  const { sink, smsc, cloudApi, env } = await startRealPeers(t);
  const service = await startService(t, { env });
  const account = await openAccount(service, { messagesLeft: 100, balance: 50_000, whatsappPrice: 1_000 });
  const live = account.apiKey;

  // The live world: a list, a contact, a draft and a scheduled campaign, a live key, a live email, a suppression, templates.
  const list = (await post(service, '/v1/lists', live, { name: 'News', optin: 'single' })).json().list_id as string;
  const doubleList = (await post(service, '/v1/lists', live, { name: 'Weekly', optin: 'double', from: { email: 'news@example.com', name: 'News' } })).json().list_id as string;
  const contact = (await post(service, '/v1/contacts', live, { email: 'ana@example.org', lists: [list] })).json().contact_id as string;
  const draft = (await post(service, '/v1/campaigns', live, campaignBody([list]))).json().campaign_id as string;
  const scheduled = (await post(service, '/v1/campaigns', live, campaignBody([list], { send_at: '2099-01-01T00:00:00Z' }))).json().campaign_id as string;
  assert.equal((await post(service, `/v1/campaigns/${scheduled}/send`, live, {})).statusCode, 200);
  const template = (await post(service, '/v1/email/templates', live, { name: 'Greeting', html: '<p>Hello {{name}}</p>' })).json().template_id as string;
  const whatsappTemplate = (await addWhatsappTemplate(service, account.id)).id;
  const liveKey = await issueKey(service, account.id, ['email']);
  const msgid = (await post(service, '/v1/email', live, emailBody())).json().to[0].msgid as string;
  assert.equal((await post(service, '/v1/suppressions', live, { email: 'kept@example.org' })).statusCode, 200);
  await service.worker.drain();
  const sentForReal = [sink.messages.length, smsc.submits.length, cloudApi.requests.length];
  assert.deepStrictEqual(sentForReal, [1, 0, 0]);

  const made = await post(service, '/v1/api-keys', live, { name: 'CI', scopes: [...SCOPES], mode: 'test' });
  const testKey = made.json().api_key as string;
  // A domain row from before DKIM gets its keys on first read (app/sender-domains.ts provisioned): read it first, as any live use would.
  assert.equal((await get(service, '/v1/domains', live)).statusCode, 200);
  const before = await liveState(service, account.id);
  const bodies = walkBodies({ list, whatsappTemplate, doubleList });

  const operations = await operationsOf(service);
  const answered: Record<string, number[]> = {};
  // Twice: the campaign routes on the live draft, then on the live scheduled campaign.
  for (const campaign of [draft, scheduled]) {
    const params: Record<string, string> = {
      ...PARAMS, msgid, campaign_id: campaign, keyId: liveKey.id, list_id: list, contact_id: contact, template_id: template,
      email: 'kept%40example.org', name: 'news',
    };
    for (const operation of operations) {
      const name = `${operation.method} ${operation.path}`;
      const url = operation.path.replace(/\{(\w+)\}/g, (_, param: string) => params[param] ?? 'x');
      const body = bodies[name] ?? (['POST', 'PUT', 'PATCH'].includes(operation.method) ? {} : undefined);
      const res = await service.http.inject({
        method: operation.method as 'GET', url,
        headers: { authorization: `Bearer ${testKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      (answered[name] ??= []).push(res.statusCode);
      assert.ok(res.statusCode < 500, `${name} answered ${res.statusCode}: ${res.body}`);
    }
  }
  await service.campaigns?.drain();
  await service.worker.drain();

  assert.ok(Object.keys(answered).length >= 90, `walked ${Object.keys(answered).length} operations`);
  assert.deepStrictEqual([sink.messages.length, smsc.submits.length, cloudApi.requests.length], sentForReal);
  assert.deepStrictEqual(await liveState(service, account.id), before);
  // The walk did reach the sandbox: test messages were made (sends, the confirmation, the campaign test send).
  const tests = (await get(service, '/v1/messages?mode=test', live)).json().data as { recipient: string }[];
  assert.ok(tests.some((m) => m.recipient === 'new@example.org') && tests.some((m) => m.recipient === 'qa@example.org'), JSON.stringify(tests));

  // And the comparison sees a live change when there is one: the same cancel from the live key (the campaign ends, its debit is refunded).
  assert.equal((await post(service, `/v1/campaigns/${scheduled}/cancel`, live, {})).statusCode, 200);
  assert.notDeepStrictEqual(await liveState(service, account.id), before);
});

test('the OpenAPI document says of every /v1 operation a key may call what a test key may do there', async (t) => {
  const service = await startService(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  const rules: Record<string, string[]> = {};
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation['x-herald-scope'] === undefined || operation['x-herald-session-only'] === true) continue;
      (rules[String(operation['x-herald-test-keys'])] ??= []).push(`${method.toUpperCase()} ${path}`);
    }
  }
  assert.deepStrictEqual({ refused: rules.refused?.sort(), 'test-only': rules['test-only']?.sort(), other: Object.keys(rules).sort() }, {
    refused: [
      'DELETE /v1/domains/{domain}', 'DELETE /v1/receiving-domains/{id}', 'DELETE /v1/users/{userId}', 'DELETE /v1/webhooks/endpoints/{id}', 'PATCH /v1/account', 'PATCH /v1/users/{userId}',
      'PATCH /v1/webhooks/endpoints/{id}', 'POST /v1/consent', 'POST /v1/domains',
      'POST /v1/domains/{domain}/verify', 'POST /v1/receiving-domains', 'POST /v1/receiving-domains/{id}/verify', 'POST /v1/users',
      'POST /v1/webhooks/deliveries/retry-failed', 'POST /v1/webhooks/deliveries/{id}/retry', 'POST /v1/webhooks/endpoints',
      'POST /v1/webhooks/endpoints/{id}/deliveries/retry-failed', 'POST /v1/webhooks/endpoints/{id}/secret/rotate', 'POST /v1/webhooks/secret/rotate', 'POST /v1/whatsapp/templates',
      'PUT /v1/receiving-domains/{id}/rules', 'PUT /v1/sms/keywords', 'PUT /v1/webhooks',
    ],
    'test-only': [
      'DELETE /v1/api-keys/{keyId}', 'DELETE /v1/campaigns/{campaign_id}', 'DELETE /v1/messages/{msgid}/schedule', 'DELETE /v1/suppressions/{email}',
      'PATCH /v1/campaigns/{campaign_id}', 'PATCH /v1/messages/{msgid}/schedule', 'POST /v1/api-keys', 'POST /v1/campaigns/{campaign_id}/cancel', 'POST /v1/campaigns/{campaign_id}/pause', 'POST /v1/campaigns/{campaign_id}/resend',
      'POST /v1/campaigns/{campaign_id}/resume', 'POST /v1/campaigns/{campaign_id}/send',
    ],
    other: ['allowed', 'refused', 'test-only'],
  });
});
