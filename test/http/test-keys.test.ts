// Test keys (docs/sandbox.md): a key made in test mode starts `test_`, sends through the
// capture transports whatever is configured (a real SMTP relay, a real SMSC on loopback
// here, which must receive nothing), is never billed (the ledger), keeps its messages
// apart in the log, marks its webhooks `test: true`, and shares the account's templates
// and sender domains with its live keys. And it stays in the sandbox: it makes only test
// keys, its confirmations and campaigns are test messages, and it changes no live campaign
// and none of the account's settings (the walk of every route: route-scopes.test.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Service } from '../../src/service.ts';
import { listLedger } from '../../src/store/ledger.ts';
import type { Smsc } from '../peers/smsc.ts';
import type { CloudApiStandIn } from '../peers/whatsapp-cloud-api.ts';
import type { SmtpSink } from '../peers/smtp-sink.ts';
import { startRealPeers } from '../support/real-peers.ts';
import { startWebhookReceiver, subscribe } from '../peers/webhook-receiver.ts';
import {
  ADMIN_TOKEN, addWhatsappTemplate, emailBody, get, issueKey, openAccount, post, readAccount, smsBody, startService, type TestAccount,
} from '../support/service.ts';
import { campaignBody } from '../support/campaigns.ts';

const JWT = '[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+';

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly testKey: string;
  readonly sink: SmtpSink;
  readonly smsc: Smsc;
  readonly cloudApi: CloudApiStandIn;
}

/** A service whose email goes to a real relay, SMS to a real SMSC and WhatsApp to a Cloud API stand-in, an account, and a test key made through /v1/api-keys. */
async function world(t: TestContext, account: Parameters<typeof openAccount>[1] = {}): Promise<World> {
  const { sink, smsc, cloudApi, env } = await startRealPeers(t);
  const service = await startService(t, { env });
  const opened = await openAccount(service, account);
  const made = await post(service, '/v1/api-keys', opened.apiKey, { name: 'CI', scopes: ['email', 'sms', 'whatsapp', 'webhooks', 'account'], mode: 'test' });
  assert.equal(made.statusCode, 201, made.body);
  return { service, account: opened, testKey: made.json().api_key as string, sink, smsc, cloudApi };
}

test('a key made with mode test through /v1/api-keys starts test_ and says its mode', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/api-keys', account.apiKey, { name: 'CI', scopes: ['email'], mode: 'test' });
  const body = res.json();
  assert.equal(res.statusCode, 201);
  assert.match(body.api_key, new RegExp(`^test_${JWT}$`));
  assert.equal(body.mode, 'test');
  const listed = (await get(service, '/v1/api-keys', account.apiKey)).json().api_keys as { key_id: string; mode: string }[];
  assert.deepStrictEqual(listed.map((k) => k.mode), ['live', 'test']);
});

test('a key mode other than live or test is refused with the field named', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/api-keys', account.apiKey, { name: 'CI', scopes: ['email'], mode: 'sandbox' });
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'mode: must be "live" or "test"' }]);
});

test('the operator API issues a test key with mode test', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await service.http.inject({
    method: 'POST', url: `/admin/v1/accounts/${account.id}/api-keys`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: { mode: 'test' },
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.match(res.json().apiKey, new RegExp(`^test_${JWT}$`));
  assert.equal(res.json().mode, 'test');
});

test('a live key with test_ put in front of it is an invalid key', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', `test_${account.apiKey}`, emailBody());
  assert.deepStrictEqual([res.statusCode, res.json()], [403, { error: 'Invalid API Key ' }]);
});

test('a test key\'s email goes to the capture transport, never to the configured relay', async (t) => {
  const w = await world(t);
  const msgid = (await post(w.service, '/v1/email', w.testKey, emailBody())).json().to[0].msgid as string;
  await w.service.worker.drain();

  const raw = await get(w.service, `/v1/messages/${msgid}/raw`, w.testKey);
  assert.equal(raw.statusCode, 200);
  assert.match(raw.body, /^Subject: Hello\r$/m);
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
  assert.equal(w.sink.messages.length, 0);
});

test('a test key\'s SMS goes to the capture transport, never to the configured SMSC', async (t) => {
  const w = await world(t);
  const msgid = (await post(w.service, '/v1/sms/send', w.testKey, smsBody())).json().messages[0].msgid as string;
  await w.service.worker.drain();

  assert.equal((await get(w.service, `/v1/messages/${msgid}/raw`, w.testKey)).statusCode, 200);
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
  await sleep(50);
  assert.deepStrictEqual(w.smsc.submits, []);
});

test('a test key\'s WhatsApp message goes to the capture transport, never to the configured Cloud API', async (t) => {
  const w = await world(t);
  const template = await addWhatsappTemplate(w.service, w.account.id);
  const msgid = (await post(w.service, '/v1/whatsapp/sendTemplateMessage', w.testKey, { destination: '+5215512345678', templateId: template.id, params: ['Ana', '1234'] })).json().msgid as string;
  await w.service.worker.drain();

  assert.equal((await get(w.service, `/v1/messages/${msgid}/raw`, w.testKey)).statusCode, 200);
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
  assert.deepStrictEqual(w.cloudApi.requests, []);
});

test('a live key of the same account still goes to the configured relay', async (t) => {
  const w = await world(t);
  await post(w.service, '/v1/email', w.account.apiKey, emailBody());
  await w.service.worker.drain();
  assert.deepStrictEqual(w.sink.messages.map((m) => m.rcptTo), [['ana@example.org']]);
});

test('a test key\'s sends on every channel debit nothing and write no ledger row', async (t) => {
  const w = await world(t, { messagesLeft: 10, balance: 50_000, whatsappPrice: 1_000 });
  const template = await addWhatsappTemplate(w.service, w.account.id);
  const ledgerBefore = await listLedger(w.service.deps.db, w.account.id);

  const email = await post(w.service, '/v1/email', w.testKey, emailBody({ to: [{ email: 'ana@example.org' }, { email: 'bo@example.org' }] }));
  const sms = await post(w.service, '/v1/sms/send', w.testKey, smsBody({ mobile_numbers: ['+5215512345678', '+5215512345679'] }));
  const whatsapp = await post(w.service, '/v1/whatsapp/sendTemplateMessage', w.testKey, { destination: '+5215512345678', templateId: template.id, params: ['Ana', '1234'] });
  await w.service.worker.drain();

  assert.deepStrictEqual([email.statusCode, sms.json().messages_left, whatsapp.json().current_balance], [200, 10, 5]);
  const account = await readAccount(w.service, w.account.id);
  assert.deepStrictEqual([account.messagesLeft, account.balance], [10, 50_000]);
  assert.deepStrictEqual(await listLedger(w.service.deps.db, w.account.id), ledgerBefore);
});

test('a test key sends even when the account has nothing left to pay with', async (t) => {
  const w = await world(t, { messagesLeft: 0 });
  const res = await post(w.service, '/v1/sms/send', w.testKey, smsBody());
  assert.deepStrictEqual([res.statusCode, res.json().messages_left, res.json().total_messages_sent], [200, 0, 1]);
});

test('test messages are listed with ?mode=test only; the default list shows live messages', async (t) => {
  const w = await world(t);
  const live = (await post(w.service, '/v1/email', w.account.apiKey, emailBody())).json().to[0].msgid as string;
  const sandboxed = (await post(w.service, '/v1/email', w.testKey, emailBody())).json().to[0].msgid as string;

  const byDefault = (await get(w.service, '/v1/messages', w.account.apiKey)).json();
  const tests = (await get(w.service, '/v1/messages?mode=test', w.account.apiKey)).json();
  const lives = (await get(w.service, '/v1/messages?mode=live', w.testKey)).json();
  assert.deepStrictEqual(byDefault.data.map((m: { msgid: string }) => m.msgid), [live]);
  assert.deepStrictEqual(tests.data.map((m: { msgid: string; mode: string }) => [m.msgid, m.mode]), [[sandboxed, 'test']]);
  assert.deepStrictEqual(lives.data.map((m: { msgid: string }) => m.msgid), [live]);
});

test('a mode filter other than live or test answers 400', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await get(service, '/v1/messages?mode=sandbox', account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'mode must be live or test' }]);
});

test('a test key\'s webhooks carry test: true; a live key\'s carry no test field', async (t) => {
  const w = await world(t);
  const receiver = await startWebhookReceiver(t);
  await subscribe(w.service, w.account.apiKey, receiver);
  const sandboxed = (await post(w.service, '/v1/sms/send', w.testKey, smsBody())).json().messages[0].msgid as string;
  const live = (await post(w.service, '/v1/email', w.account.apiKey, emailBody())).json().to[0].msgid as string;
  await w.service.worker.drain();
  await w.service.webhooks.drain();

  assert.deepStrictEqual(receiver.received.map((e) => [e.payload.type, e.payload.data['msgid'], e.payload.data['test']]).sort(), [
    ['email.sent', live, undefined],
    ['sms.sent', sandboxed, true],
  ]);
});

test('a test key uses the account\'s email templates and sender domains', async (t) => {
  const w = await world(t);
  const made = await post(w.service, '/v1/email/templates', w.account.apiKey, { name: 'Greeting', html: '<p>Hello {{name}}</p>' });
  const res = await post(w.service, '/v1/email', w.testKey, emailBody({ body: undefined, template_id: made.json().template_id, variables: { name: 'Ana' } }));
  assert.equal(res.statusCode, 200, res.body);
  await w.service.worker.drain();
  const msgid = res.json().to[0].msgid as string;
  assert.equal((await get(w.service, `/v1/messages/${msgid}`, w.testKey)).json().status, 'sent');
});

test('an Idempotency-Key used by a test key is never replayed to a live key: test keys have their own key space, the live send is sent and billed', async (t) => {
  const w = await world(t);
  const send = (apiKey: string) => w.service.http.inject({
    method: 'POST', url: '/v1/sms/send', payload: smsBody(),
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'order-42' },
  });
  const first = await send(w.testKey);
  const live = await send(w.account.apiKey);

  assert.equal(first.statusCode, 200);
  assert.deepStrictEqual([live.statusCode, live.headers['idempotent-replayed']], [200, undefined]);
  assert.notEqual(live.json().messages[0].msgid, first.json().messages[0].msgid);
  assert.equal((await readAccount(w.service, w.account.id)).messagesLeft, 999);
});

test('a test key\'s messages are left out of /v1/usage', async (t) => {
  const w = await world(t);
  await post(w.service, '/v1/email', w.account.apiKey, emailBody());
  await post(w.service, '/v1/email', w.testKey, emailBody({ to: [{ email: 'bo@example.org' }] }));
  await post(w.service, '/v1/sms/send', w.testKey, smsBody());
  await w.service.worker.drain();

  const usage = (await get(w.service, '/v1/usage?days=1', w.account.apiKey)).json();
  assert.deepStrictEqual([usage.today, usage.days[0].email.accepted, usage.days[0].sms.accepted], [{ email: 1, sms: 0, whatsapp: 0 }, 1, 0]);
});

test('the OpenAPI document shows the key mode, the messages\' mode filter and the test and simulated event fields', async (t) => {
  const service = await startService(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  const enumOf = (schema: { anyOf: { enum: string[] }[] }) => schema.anyOf.flatMap((s) => s.enum);
  const eventData = doc.webhooks['sms.sent'].post.requestBody.content['application/json'].schema.properties.data.properties;
  assert.deepStrictEqual({
    ownKey: enumOf(doc.paths['/v1/api-keys'].post.requestBody.content['application/json'].schema.properties.mode),
    operatorKey: enumOf(doc.paths['/admin/v1/accounts/{id}/api-keys'].post.requestBody.content['application/json'].schema.properties.mode),
    listFilter: enumOf(doc.paths['/v1/messages'].get.parameters.find((p: { name: string }) => p.name === 'mode').schema),
    events: [eventData.test.const, eventData.simulated.const],
  }, { ownKey: ['live', 'test'], operatorKey: ['live', 'test'], listFilter: ['live', 'test'], events: [true, true] });
});

// ---- Confined: a test key makes only test keys, its confirmations and campaigns are test
// messages, and it changes no live campaign and none of the account's settings.

const REFUSED = (detail: string) => ({ message: 'A test key cannot do this', detail });
const SETTINGS_REFUSED = REFUSED('a test key may read, and write only in the sandbox: this changes the account\'s settings or something live; use a live key');

function send(w: World, method: 'PATCH' | 'PUT' | 'DELETE' | 'POST', url: string, apiKey: string, body?: unknown) {
  return w.service.http.inject({
    method, url, headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const keyModes = async (w: World) => ((await get(w.service, '/v1/api-keys', w.account.apiKey)).json().api_keys as { mode: string; revoked_at: string | null }[])
  .map((k) => [k.mode, k.revoked_at === null]);

test('a test key holding every scope cannot make a live key: 403 A test key cannot do this, and no key is made', async (t) => {
  const w = await world(t);
  const before = await keyModes(w);
  const res = await post(w.service, '/v1/api-keys', w.testKey, { name: 'escape', scopes: ['email', 'account'], mode: 'live' });
  assert.deepStrictEqual([res.statusCode, res.json()], [403, REFUSED('mode: a test key makes only test keys ("mode": "test")')]);
  assert.deepStrictEqual(await keyModes(w), before);
});

test('a key a test key makes without a mode is a test key', async (t) => {
  const w = await world(t);
  const res = await post(w.service, '/v1/api-keys', w.testKey, { name: 'CI 2', scopes: ['email'] });
  assert.equal(res.statusCode, 201, res.body);
  assert.match(res.json().api_key, new RegExp(`^test_${JWT}$`));
  assert.equal(res.json().mode, 'test');
});

test('a test key revokes test keys and not live ones', async (t) => {
  const w = await world(t);
  const live = await issueKey(w.service, w.account.id, ['email']);
  const other = (await post(w.service, '/v1/api-keys', w.account.apiKey, { name: 'CI 2', scopes: ['email'], mode: 'test' })).json().key_id as string;
  const refused = await send(w, 'DELETE', `/v1/api-keys/${live.id}`, w.testKey);
  assert.deepStrictEqual([refused.statusCode, refused.json()], [403, REFUSED('a test key revokes only test keys')]);
  assert.equal((await send(w, 'DELETE', `/v1/api-keys/${other}`, w.testKey)).statusCode, 204);
  assert.equal((await post(w.service, '/v1/email', live.apiKey, emailBody())).statusCode, 200);
});

test('the CLI\'s test key (every scope, account included) cannot leave the sandbox', async (t) => {
  const w = await world(t);
  const { keyCreate } = await import('../../src/cli/key-commands.ts');
  const made = await keyCreate.run(w.service.deps as never, [w.account.id], { mode: 'test', json: true } as never);
  assert.ok(made.ok);
  const cliKey = (made.value as { json: { apiKey: string; scopes: string[] } }).json;
  assert.deepStrictEqual(cliKey.scopes, ['email', 'sms', 'whatsapp', 'webhooks', 'account']);
  const minted = await post(w.service, '/v1/api-keys', cliKey.apiKey, { name: 'escape', scopes: ['account'], mode: 'live' });
  const settings = await send(w, 'PATCH', '/v1/account', cliKey.apiKey, { ip_allow_list: ['192.0.2.1'] });
  assert.deepStrictEqual([minted.statusCode, settings.statusCode, settings.json()], [403, 403, SETTINGS_REFUSED]);
});

test('a test key cannot change the account\'s settings: webhooks, signing secret, sender domains, allow-list, users', async (t) => {
  const w = await world(t);
  const answers = [
    await send(w, 'PUT', '/v1/webhooks', w.testKey, { url: 'https://hooks.example.org/herald' }),
    await send(w, 'POST', '/v1/webhooks/secret/rotate', w.testKey, {}),
    await send(w, 'POST', '/v1/domains', w.testKey, { domain: 'mail.example.net' }),
    await send(w, 'POST', '/v1/domains/example.com/verify', w.testKey, {}),
    await send(w, 'PATCH', '/v1/account', w.testKey, { ip_allow_list: ['192.0.2.1'] }),
    await send(w, 'POST', '/v1/users', w.testKey, { email: 'eve@example.org', role: 'owner' }),
  ];
  assert.deepStrictEqual(answers.map((res) => [res.statusCode, res.json(), res.headers.connection]), answers.map(() => [403, SETTINGS_REFUSED, 'close']));
  assert.deepStrictEqual((await get(w.service, '/v1/account', w.account.apiKey)).json().ip_allow_list ?? [], []);
});

test('a test key removes only simulator addresses from the suppression list', async (t) => {
  const w = await world(t);
  for (const email of ['ana@example.org', 'bounced+run-1@simulator.herald.test']) {
    assert.equal((await post(w.service, '/v1/suppressions', w.testKey, { email })).statusCode, 200);
  }
  const live = await send(w, 'DELETE', '/v1/suppressions/ana%40example.org', w.testKey);
  const simulated = await send(w, 'DELETE', '/v1/suppressions/bounced%2Brun-1%40simulator.herald.test', w.testKey);
  assert.deepStrictEqual([live.statusCode, live.json(), simulated.statusCode], [
    403, REFUSED('a test key removes only simulator addresses (@simulator.herald.test) from the suppression list'), 204,
  ]);
});

/** A double opt-in list of the account, from its verified example.com. */
async function doubleList(w: World): Promise<string> {
  const res = await post(w.service, '/v1/lists', w.account.apiKey, { name: 'Weekly News', optin: 'double', from: { email: 'news@example.com', name: 'Example News' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().list_id;
}

test('a test key\'s contact joining a double opt-in list gets its confirmation captured, never sent to the relay, never billed', async (t) => {
  const w = await world(t, { messagesLeft: 10 });
  const list = await doubleList(w);
  const ledger = await listLedger(w.service.deps.db, w.account.id);
  const res = await post(w.service, '/v1/contacts', w.testKey, { email: 'ana@example.org', lists: [list] });
  assert.equal(res.statusCode, 201, res.body);
  const msgid = res.json().consent[0].detail.msgid as string;
  await w.service.worker.drain();

  const message = (await get(w.service, `/v1/messages/${msgid}`, w.account.apiKey)).json();
  assert.deepStrictEqual([message.status, message.mode], ['sent', 'test']);
  assert.match((await get(w.service, `/v1/messages/${msgid}/raw`, w.account.apiKey)).body, /^Subject: Confirm your subscription to Weekly News\r$/m);
  assert.deepStrictEqual([w.sink.messages.length, (await readAccount(w.service, w.account.id)).messagesLeft], [0, 10]);
  assert.deepStrictEqual(await listLedger(w.service.deps.db, w.account.id), ledger);
});

test('a test key\'s import into a double opt-in list gets its confirmations captured and unbilled', async (t) => {
  const w = await world(t, { messagesLeft: 10 });
  const list = await doubleList(w);
  const res = await w.service.http.inject({
    method: 'POST', url: `/v1/contacts/imports?list_id=${list}`, payload: 'email\r\nana@example.org\r\nbo@example.org\r\n',
    headers: { authorization: `Bearer ${w.testKey}`, 'content-type': 'text/csv' },
  });
  assert.equal(res.statusCode, 202, res.body);
  for (let i = 0; i < 50 && (await get(w.service, `/v1/contacts/imports/${res.json().import_id}`, w.testKey)).json().status !== 'finished'; i++) await sleep(20);
  await w.service.worker.drain();
  const tests = (await get(w.service, '/v1/messages?mode=test', w.account.apiKey)).json().data as { recipient: string; status: string }[];
  assert.deepStrictEqual(tests.map((m) => [m.recipient, m.status]).sort(), [['ana@example.org', 'sent'], ['bo@example.org', 'sent']]);
  assert.deepStrictEqual([w.sink.messages.length, (await readAccount(w.service, w.account.id)).messagesLeft], [0, 10]);
});

/** A single opt-in list with Ana and Bo on it, made by the live key. */
async function audience(w: World): Promise<string> {
  const list = (await post(w.service, '/v1/lists', w.account.apiKey, { name: 'News', optin: 'single' })).json().list_id as string;
  for (const email of ['ana@example.org', 'bo@example.net']) {
    assert.equal((await post(w.service, '/v1/contacts', w.account.apiKey, { email, lists: [list] })).statusCode, 201);
  }
  return list;
}

async function runCampaigns(w: World): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await w.service.campaigns?.drain();
    await w.service.worker.drain();
  }
}

test('a test key\'s campaign is a test campaign: sent, its messages captured, nothing debited or refunded', async (t) => {
  const w = await world(t, { messagesLeft: 10 });
  const list = await audience(w);
  const ledger = await listLedger(w.service.deps.db, w.account.id);
  const made = await post(w.service, '/v1/campaigns', w.testKey, campaignBody([list]));
  assert.deepStrictEqual([made.statusCode, made.json().mode], [201, 'test']);
  const id = made.json().campaign_id as string;
  const quote = (await get(w.service, `/v1/campaigns/${id}/quote`, w.testKey)).json();
  assert.deepStrictEqual([quote.recipients, quote.messages, quote.messages_left], [2, 0, 10]);
  const sent = await post(w.service, `/v1/campaigns/${id}/send`, w.testKey, {});
  assert.deepStrictEqual([sent.statusCode, sent.json().status, sent.json().recipients], [200, 'running', 2]);
  await runCampaigns(w);

  // Walked whole (what was never made would have been refunded here); it finishes once the last outcomes are in.
  const view = (await get(w.service, `/v1/campaigns/${id}`, w.testKey)).json();
  const tests = (await get(w.service, '/v1/messages?mode=test', w.account.apiKey)).json().data as { recipient: string; status: string }[];
  assert.equal(view.mode, 'test');
  assert.deepStrictEqual(tests.map((m) => [m.recipient, m.status]).sort(), [['ana@example.org', 'sent'], ['bo@example.net', 'sent']]);
  assert.deepStrictEqual([w.sink.messages.length, (await readAccount(w.service, w.account.id)).messagesLeft], [0, 10]);
  assert.deepStrictEqual(await listLedger(w.service.deps.db, w.account.id), ledger);
});

test('a test key\'s test send of a live campaign is captured and unbilled', async (t) => {
  const w = await world(t, { messagesLeft: 10 });
  const list = await audience(w);
  const id = (await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list]))).json().campaign_id as string;
  const res = await post(w.service, `/v1/campaigns/${id}/test`, w.testKey, { emails: ['qa@example.org'] });
  assert.equal(res.statusCode, 200, res.body);
  await w.service.worker.drain();
  const message = (await get(w.service, `/v1/messages/${res.json().to[0].msgid}`, w.account.apiKey)).json();
  assert.deepStrictEqual([message.status, message.mode, w.sink.messages.length, (await readAccount(w.service, w.account.id)).messagesLeft], ['sent', 'test', 0, 10]);
});

test('a test key following up a live campaign is refused as a test key before its body is read', async (t) => {
  const w = await world(t, { messagesLeft: 10 });
  const list = await audience(w);
  const live = (await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list]))).json().campaign_id as string;
  const res = await post(w.service, `/v1/campaigns/${live}/resend`, w.testKey, { to: 'everyone' });
  assert.deepStrictEqual([res.statusCode, res.json()], [403, REFUSED('a test key changes, sends and follows up only test campaigns (the ones test keys made)')]);
});

test('a test key cannot change, send, pause, resume, cancel, delete or follow up a live campaign', async (t) => {
  const w = await world(t, { messagesLeft: 10 });
  const list = await audience(w);
  const draft = (await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list]))).json().campaign_id as string;
  const running = (await post(w.service, '/v1/campaigns', w.account.apiKey, campaignBody([list], { send_at: '2099-01-01T00:00:00Z' }))).json().campaign_id as string;
  assert.equal((await post(w.service, `/v1/campaigns/${running}/send`, w.account.apiKey, {})).statusCode, 200);
  const before = [(await get(w.service, `/v1/campaigns/${draft}`, w.testKey)).json(), (await get(w.service, `/v1/campaigns/${running}`, w.testKey)).json()];

  const answers = [
    await send(w, 'PATCH', `/v1/campaigns/${draft}`, w.testKey, { name: 'Hijacked' }),
    await send(w, 'DELETE', `/v1/campaigns/${draft}`, w.testKey),
    await post(w.service, `/v1/campaigns/${draft}/send`, w.testKey, {}),
    await send(w, 'PATCH', `/v1/campaigns/${running}`, w.testKey, { name: 'Hijacked' }),
    ...await Promise.all(['pause', 'resume', 'cancel', 'resend'].map((verb) => post(w.service, `/v1/campaigns/${running}/${verb}`, w.testKey, { to: 'not_opened' }))),
  ];
  const refused = REFUSED('a test key changes, sends and follows up only test campaigns (the ones test keys made)');
  assert.deepStrictEqual(answers.map((res) => [res.statusCode, res.json()]), answers.map(() => [403, refused]));
  const after = [(await get(w.service, `/v1/campaigns/${draft}`, w.testKey)).json(), (await get(w.service, `/v1/campaigns/${running}`, w.testKey)).json()];
  assert.deepStrictEqual(after, before);
  assert.equal((await get(w.service, '/v1/campaigns', w.testKey)).json().campaigns.length, 2);
});
