// Idempotency-Key on the send routes (README "Idempotent sends"): a retried send with the
// same key and body gets the first answer again and is billed once; another request under
// the key is refused; a key in use is refused while its first request runs.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { issueApiKey } from '../../src/app/api-keys.ts';
import { listLedger } from '../../src/store/ledger.ts';
import type { Service } from '../../src/service.ts';
import { addWhatsappTemplate, emailBody, openAccount, readAccount, smsBody, startService, type TestAccount } from '../support/service.ts';
import { action, campaignBody, campaignWorld, createCampaign, makeContact, makeList } from '../support/campaigns.ts';
import { inboundWebhook, postWebhook } from '../peers/whatsapp-cloud-api.ts';

const KEY = 'order-4711-confirmation';
const REUSED = { message: 'Idempotency key already used with a different request' };
const IN_FLIGHT = { message: 'A request with this idempotency key is being processed' };
const INVALID_KEY = { message: 'Invalid request, the Idempotency-Key header must be 1 to 255 printable characters' };
const DAY = 24 * 3600 * 1000;

function keyed(service: Service, url: string, apiKey: string, body: unknown, key: string | undefined = KEY): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method: 'POST', url,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: JSON.stringify(body),
  });
}

/** The account's ledger without its opening line, oldest first: [reason, messages, balance]. */
async function sendLedger(service: Service, accountId: string): Promise<[string, number, number][]> {
  const entries = await listLedger(service.deps.db, accountId);
  return entries.filter((e) => e.reason !== 'account.open').map((e) => [e.reason, e.messagesDelta, e.balanceDelta]);
}

async function messageIds(service: Service, accountId: string): Promise<string[]> {
  return (await service.deps.db.selectFrom('messages').select('id').where('account_id', '=', accountId).orderBy('id').execute()).map((m) => m.id);
}

/** The answer as a client sees it: status, the replay header, content type, body. */
const seen = (res: LightMyRequestResponse) => ({
  status: res.statusCode, replayed: res.headers['idempotent-replayed'], type: res.headers['content-type'], body: res.json() as unknown,
});

async function emailWorld(t: TestContext, clock?: () => number): Promise<{ service: Service; account: TestAccount }> {
  const service = await startService(t, clock === undefined ? {} : { clock });
  return { service, account: await openAccount(service, { messagesLeft: 10 }) };
}

test('an email sent again with the same key and body gets the first answer (same msgids) with Idempotent-Replayed: true, billed once', async (t) => {
  const { service, account } = await emailWorld(t);
  const body = emailBody({ to: [{ email: 'ana@example.org' }, { email: 'bo@example.org' }] });

  const first = await keyed(service, '/v1/email', account.apiKey, body);
  const again = await keyed(service, '/v1/email', account.apiKey, body);

  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const msgids = await messageIds(service, account.id);
  assert.equal(msgids.length, 2);
  assert.deepStrictEqual(first.json(), {
    message: 'Email queued for delivery',
    to: [{ email: 'ana@example.org', msgid: first.json().to[0].msgid }, { email: 'bo@example.org', msgid: first.json().to[1].msgid }],
  });
  assert.deepStrictEqual(first.json().to.map((r: { msgid: string }) => r.msgid).sort(), msgids);
  assert.deepStrictEqual(seen(again), { status: 200, replayed: 'true', type: 'application/json; charset=utf-8', body: first.json() });
  assert.equal(again.body, first.body);
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -2, 0]]);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 8);
  assert.deepStrictEqual(await messageIds(service, account.id), msgids);
});

test('the same body with its keys in another order is the same request: replayed', async (t) => {
  const { service, account } = await emailWorld(t);
  const body = emailBody();
  const reordered = Object.fromEntries(Object.entries(body).reverse());

  const first = await keyed(service, '/v1/email', account.apiKey, body);
  const again = await keyed(service, '/v1/email', account.apiKey, reordered);

  assert.deepStrictEqual(seen(again), { ...seen(first), replayed: 'true' });
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0]]);
});

test('an SMS replayed answers the messages_left of the first answer and debits once', async (t) => {
  const { service, account } = await emailWorld(t);
  const first = await keyed(service, '/v1/sms/send', account.apiKey, smsBody());
  const again = await keyed(service, '/v1/sms/send', account.apiKey, smsBody());

  assert.deepStrictEqual(first.json(), {
    result: 'SMS queued for delivery', total_contacts: 1, total_messages_sent: 1, messages_left: 9,
    messages: [{ mobile_number: '+5215512345678', msgid: first.json().messages[0].msgid }],
  });
  assert.deepStrictEqual(seen(again), { ...seen(first), replayed: 'true' });
  assert.deepStrictEqual(await sendLedger(service, account.id), [['sms.send', -1, 0]]);
});

test('a WhatsApp template message replayed answers the first current_balance and takes the price once', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500 });
  const template = await addWhatsappTemplate(service, account.id);
  const body = { destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'] };

  const first = await keyed(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, body);
  const again = await keyed(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, body);

  assert.deepStrictEqual(first.json(), { result: 'WhatsApp message queued for delivery', current_balance: 0.95, msgid: first.json().msgid });
  assert.deepStrictEqual(seen(again), { ...seen(first), replayed: 'true' });
  assert.deepStrictEqual(await sendLedger(service, account.id), [['whatsapp.send', 0, -500]]);
});

test('a WhatsApp session message replayed answers the first answer and takes the price once', async (t) => {
  const appSecret = 'meta-app-secret-0123456789';
  const phoneNumberId = '106540352242922';
  const service = await startService(t, { env: { HERALD_WHATSAPP_APP_SECRET: appSecret } });
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, whatsappPhoneNumberId: phoneNumberId, whatsappAccessToken: 'EAAG-token' });
  const wrote = await postWebhook(service, inboundWebhook(phoneNumberId, { from: '5215512345678', timestamp: Math.floor(Date.now() / 1000), text: 'hello' }), { appSecret });
  assert.equal(wrote.statusCode, 200);
  const body = { destination: '5215512345678', message: 'Your order shipped' };

  const first = await keyed(service, '/v1/whatsapp/sendMessage', account.apiKey, body);
  const again = await keyed(service, '/v1/whatsapp/sendMessage', account.apiKey, body);

  assert.deepStrictEqual(first.json(), { result: 'WhatsApp message queued for delivery', current_balance: 0.95, msgid: first.json().msgid });
  assert.deepStrictEqual(seen(again), { ...seen(first), replayed: 'true' });
  assert.deepStrictEqual(await sendLedger(service, account.id), [['whatsapp.send', 0, -500]]);
});

test('a campaign send replayed answers the campaign as first sent and debits its audience once', async (t) => {
  const w = await campaignWorld(t, { messagesLeft: 10 });
  const list = await makeList(w, 'Customers');
  await makeContact(w, 'ana@example.org', { lists: [list] });
  await makeContact(w, 'bo@example.org', { lists: [list] });
  const id = await createCampaign(w, campaignBody([list]));

  const first = await keyed(w.service, `/v1/campaigns/${id}/send`, w.account.apiKey, {});
  const again = await keyed(w.service, `/v1/campaigns/${id}/send`, w.account.apiKey, {});
  const unkeyed = await action(w, id, 'send');

  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().status, 'running');
  assert.deepStrictEqual(seen(again), { ...seen(first), replayed: 'true' });
  // Without the key, the same send is what it always was: the campaign is no longer a draft.
  assert.deepStrictEqual([unkeyed.statusCode, unkeyed.json()], [409, { message: 'The campaign cannot do this in its current status', status: 'running' }]);
  assert.deepStrictEqual(await sendLedger(w.service, w.account.id), [['campaign.send', -2, 0]]);
});

test('the same key with a different body answers 422 and sends nothing', async (t) => {
  const { service, account } = await emailWorld(t);
  const first = await keyed(service, '/v1/email', account.apiKey, emailBody());
  const other = await keyed(service, '/v1/email', account.apiKey, emailBody({ subject: 'Hello again' }));

  assert.equal(first.statusCode, 200);
  assert.deepStrictEqual(seen(other), { status: 422, replayed: undefined, type: 'application/json; charset=utf-8', body: REUSED });
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0]]);
  assert.equal((await messageIds(service, account.id)).length, 1);
});

test('the same key on another send route answers 422', async (t) => {
  const { service, account } = await emailWorld(t);
  assert.equal((await keyed(service, '/v1/email', account.apiKey, emailBody())).statusCode, 200);
  const sms = await keyed(service, '/v1/sms/send', account.apiKey, smsBody());

  assert.deepStrictEqual([sms.statusCode, sms.json()], [422, REUSED]);
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0]]);
});

test('two simultaneous requests with one key: one is sent (200), the other answers 409 or the replay; one debit', async (t) => {
  const { service, account } = await emailWorld(t);
  const body = emailBody();

  const answers = await Promise.all([keyed(service, '/v1/email', account.apiKey, body), keyed(service, '/v1/email', account.apiKey, body)]);

  const fresh = answers.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined);
  assert.equal(fresh.length, 1, answers.map((r) => `${r.statusCode} ${r.body}`).join('; '));
  const [other] = answers.filter((r) => r !== fresh[0]);
  assert.ok(other !== undefined);
  t.diagnostic(`the other request answered ${other.statusCode}${other.headers['idempotent-replayed'] === 'true' ? ' (the replay)' : ''}`);
  if (other.statusCode === 409) assert.deepStrictEqual(other.json(), IN_FLIGHT);
  else assert.deepStrictEqual(seen(other), { ...seen(fresh[0]!), replayed: 'true' });
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0]]);
});

test('a key whose first request is still in its transaction answers 409 at once; the first then answers 200, billed once', {
  skip: process.env.HERALD_TEST_STORE === 'postgres' ? false : 'PostgreSQL only: the test holds the first send in its transaction with a row lock of its own',
}, async (t) => {
  const { service, account } = await emailWorld(t);
  const { db } = service.deps;
  // The test's own transaction locks the account row: the first send claims its key, then waits on the row.
  let release = (): void => {};
  const released = new Promise<void>((resolve) => { release = resolve; });
  const holder = new Promise<number>((resolveHolder, failHolder) => {
    db.transaction().execute(async (trx) => {
      await trx.selectFrom('accounts').select('id').where('id', '=', account.id).forUpdate().execute();
      resolveHolder((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid);
      await released;
    }).catch(failHolder);
  });
  const holderPid = await holder;
  t.after(release);

  const first = keyed(service, '/v1/email', account.apiKey, emailBody());
  const blockedByTest = async () => (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where ${holderPid} = any(pg_blocking_pids(pid))`.execute(db)).rows[0]!.n;
  const deadline = Date.now() + 10_000;
  while ((await blockedByTest()) === 0) {
    assert.ok(Date.now() < deadline, 'the first send waits on the row within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const second = await keyed(service, '/v1/email', account.apiKey, emailBody());
  release();
  const answered = await first;
  const third = await keyed(service, '/v1/email', account.apiKey, emailBody());

  assert.deepStrictEqual(seen(second), { status: 409, replayed: undefined, type: 'application/json; charset=utf-8', body: IN_FLIGHT });
  assert.deepStrictEqual([answered.statusCode, answered.headers['idempotent-replayed']], [200, undefined]);
  assert.deepStrictEqual(seen(third), { ...seen(answered), replayed: 'true' });
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0]]);
});

test('a refused request is not remembered: the key then serves the corrected request', async (t) => {
  const { service, account } = await emailWorld(t);
  const refused = await keyed(service, '/v1/sms/send', account.apiKey, smsBody({ message: '' }));
  const corrected = await keyed(service, '/v1/sms/send', account.apiKey, smsBody());

  assert.deepStrictEqual([refused.statusCode, refused.json()], [400, { message: 'Message missing or empty!' }]);
  assert.equal(corrected.statusCode, 200);
  assert.equal(corrected.headers['idempotent-replayed'], undefined);
  assert.deepStrictEqual(await sendLedger(service, account.id), [['sms.send', -1, 0]]);
});

test('a send refused in its transaction (no messages left) leaves the key free for the retry after a top-up', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 0 });
  const refused = await keyed(service, '/v1/email', account.apiKey, emailBody());
  await service.deps.db.updateTable('accounts').set({ messages_left: 1 }).where('id', '=', account.id).execute();
  const retried = await keyed(service, '/v1/email', account.apiKey, emailBody());

  assert.deepStrictEqual([refused.statusCode, refused.json()], [401, { message: 'No messages left, please buy more messages' }]);
  assert.deepStrictEqual([retried.statusCode, retried.headers['idempotent-replayed']], [200, undefined]);
});

test('keys belong to the account: another account\'s same key sends its own message', async (t) => {
  const { service, account } = await emailWorld(t);
  const other = await openAccount(service, { name: 'other', messagesLeft: 10 });
  const mine = await keyed(service, '/v1/email', account.apiKey, emailBody());
  const theirs = await keyed(service, '/v1/email', other.apiKey, emailBody());

  assert.deepStrictEqual([mine.statusCode, theirs.statusCode, theirs.headers['idempotent-replayed']], [200, 200, undefined]);
  assert.notEqual(theirs.json().to[0].msgid, mine.json().to[0].msgid);
  assert.deepStrictEqual(await sendLedger(service, other.id), [['email.send', -1, 0]]);
});

test('a test key and a live key of one account have separate key spaces: a key tried in test mode never answers a live send', async (t) => {
  const { service, account } = await emailWorld(t);
  const testKey = (await issueApiKey(service.deps, service.deps.db, account.id, { mode: 'test' })).apiKey;
  const tried = await keyed(service, '/v1/email', testKey, emailBody());
  const live = await keyed(service, '/v1/email', account.apiKey, emailBody());
  const liveAgain = await keyed(service, '/v1/email', account.apiKey, emailBody());

  assert.deepStrictEqual([tried.statusCode, live.statusCode, live.headers['idempotent-replayed']], [200, 200, undefined]);
  assert.notEqual(live.json().to[0].msgid, tried.json().to[0].msgid);
  assert.deepStrictEqual(seen(liveAgain), { ...seen(live), replayed: 'true' });
  // The test send is never billed; the live one once.
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0]]);
});

test('a key is kept 24 hours: a day later the same request is sent again, and expired keys are purged', async (t) => {
  const clock = { now: Date.UTC(2030, 0, 1) };
  const { service, account } = await emailWorld(t, () => clock.now);
  const first = await keyed(service, '/v1/email', account.apiKey, emailBody());
  clock.now += DAY - 1;
  const withinTheDay = await keyed(service, '/v1/email', account.apiKey, emailBody());
  clock.now += 1;
  const nextDay = await keyed(service, '/v1/email', account.apiKey, emailBody());
  clock.now += DAY;
  // Any keyed request purges what expired (this one's key is new).
  await keyed(service, '/v1/email', account.apiKey, emailBody(), 'another-key');

  assert.equal(withinTheDay.headers['idempotent-replayed'], 'true');
  assert.deepStrictEqual([nextDay.statusCode, nextDay.headers['idempotent-replayed']], [200, undefined]);
  assert.notEqual(nextDay.json().to[0].msgid, first.json().to[0].msgid);
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0], ['email.send', -1, 0], ['email.send', -1, 0]]);
  const left = await service.deps.db.selectFrom('idempotency_keys').select('key').execute();
  assert.deepStrictEqual(left.map((r) => r.key), ['another-key']);
});

test('an Idempotency-Key that is empty, longer than 255 characters or not printable is refused with 400 and nothing sent', async (t) => {
  const { service, account } = await emailWorld(t);
  for (const key of ['', 'k'.repeat(256), 'tab\there']) {
    const res = await keyed(service, '/v1/email', account.apiKey, emailBody(), key);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, INVALID_KEY], JSON.stringify(key));
  }
  const longest = await keyed(service, '/v1/email', account.apiKey, emailBody(), `~ ${'k'.repeat(253)}`);
  assert.equal(longest.statusCode, 200);
  assert.deepStrictEqual(await sendLedger(service, account.id), [['email.send', -1, 0]]);
});

test('the OpenAPI document shows the Idempotency-Key header, the replay header and the 409 and 422 answers on every send', async (t) => {
  const service = await startService(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const path of ['/v1/email', '/v1/sms/send', '/v1/whatsapp/sendTemplateMessage', '/v1/whatsapp/sendMessage', '/v1/campaigns/{campaign_id}/send']) {
    const operation = doc.paths[path].post;
    const header = operation.parameters.find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'idempotency-key');
    assert.equal(header?.required, false, path);
    assert.deepStrictEqual(header.schema, { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' }, path);
    assert.ok(operation.responses['409'] && operation.responses['422'], path);
    assert.deepStrictEqual(operation.responses['200'].headers['Idempotent-Replayed'].schema, { type: 'string', enum: ['true'] }, path);
  }
  assert.match(doc.paths['/v1/email'].post.responses['422'].description, /Idempotency key already used with a different request/);
});
