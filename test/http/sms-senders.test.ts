// An account's SMS senders (issue 23, item 1; docs/sms-senders.md): set by the operator
// (API and CLI), the first the default; a send names another with `from`, among the
// account's own; the SMSC stand-in sees each as submit_sm's source address.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { accountUpdate } from '../../src/cli/account-commands.ts';
import type { Service } from '../../src/service.ts';
import { startSmsc, type Smsc } from '../peers/smsc.ts';
import { ADMIN_TOKEN, get, openAccount, post, smsBody, startService } from '../support/service.ts';

const INVALID = 'Invalid request, a field has the wrong type or value';
const NOT_A_SENDER = 'is not a long number (+ and 8 to 15 digits), a short code (3 to 8 digits) '
  + 'or an alphanumeric sender id (1 to 11 letters, digits and inner spaces, with a letter)';

function admin(service: Service, method: 'POST' | 'PATCH', url: string, body: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(body),
  });
}

/** A service whose SMS go to an SMSC stand-in sending as `Herald` when an account has no senders. */
async function serviceWithSmsc(t: TestContext): Promise<{ service: Service; smsc: Smsc }> {
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const service = await startService(t, { env: { HERALD_SMS_TRANSPORT: smsc.url('?from=Herald') } });
  return { service, smsc };
}

/** [source_addr, TON, NPI] of every submit_sm the SMSC saw. */
const sources = (smsc: Smsc): (readonly [string, number, number])[] => smsc.submits.map((s) => [s.sourceAddr, s.sourceAddrTon, s.sourceAddrNpi] as const);

test('an account is opened with its SMS senders in the order given, and PATCH with [] clears them', async (t) => {
  const service = await startService(t);
  const created = await admin(service, 'POST', '/admin/v1/accounts', { name: 'acme', smsSenders: ['+34600111222', '21121', 'ACME Shop'] });
  assert.equal(created.statusCode, 201, created.body);
  const { id, smsSenders } = created.json().account;
  assert.deepStrictEqual(smsSenders, ['+34600111222', '21121', 'ACME Shop']);
  const cleared = await admin(service, 'PATCH', `/admin/v1/accounts/${id}`, { smsSenders: [] });
  assert.deepStrictEqual([cleared.statusCode, cleared.json().smsSenders], [200, []]);
});

test('SMS senders the API cannot take are refused with 400 naming the entry', async (t) => {
  const service = await startService(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts', { name: 'acme', smsSenders: ['ACME', 'ACME-Shop'] });
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: INVALID, detail: `smsSenders: "ACME-Shop" ${NOT_A_SENDER}` }]);
});

test('an SMS without from goes from the account\'s first sender, a long number as international digits', async (t) => {
  const { service, smsc } = await serviceWithSmsc(t);
  const account = await openAccount(service, { smsSenders: ['+34600111222', 'ACME'] });
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody())).statusCode, 200);
  await service.worker.drain();
  assert.deepStrictEqual(sources(smsc), [['34600111222', 1, 1]]);
});

test('an SMS with from goes from that sender: an alphanumeric id as TON 5, a short code as TON 3', async (t) => {
  const { service, smsc } = await serviceWithSmsc(t);
  const account = await openAccount(service, { smsSenders: ['+34600111222', 'ACME', '21121'] });
  for (const from of ['ACME', '21121']) assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody({ from }))).statusCode, 200);
  await service.worker.drain();
  assert.deepStrictEqual(sources(smsc).sort(), [['21121', 3, 0], ['ACME', 5, 0]]);
});

test('an SMS from an account without senders goes from the transport\'s own', async (t) => {
  const { service, smsc } = await serviceWithSmsc(t);
  const account = await openAccount(service);
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody())).statusCode, 200);
  await service.worker.drain();
  assert.deepStrictEqual(sources(smsc), [['Herald', 5, 0]]);
});

test('an SMS from a sender that is not the account\'s is refused with 400 Invalid sender, and costs nothing', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { smsSenders: ['+34600111222', 'ACME'], messagesLeft: 5 });
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ from: '+34600999888' }));
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid sender', detail: 'from: must be one of this account\'s SMS senders: +34600111222, ACME' }]);
  const sent = await post(service, '/v1/sms/send', account.apiKey, smsBody());
  assert.equal(sent.json().messages_left, 4);
});

test('a captured SMS records its sender', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { smsSenders: ['ACME'] });
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'Hi' }));
  await service.worker.drain();
  const raw = await get(service, `/v1/messages/${res.json().messages[0].msgid}/raw`, account.apiKey);
  assert.deepStrictEqual(raw.json(), { to: '+5215512345678', from: 'ACME', encoding: 'GSM7', text: 'Hi', segments: ['Hi'] });
});

test('accounts update --sms-senders sets the senders, and "" clears them', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const set = await accountUpdate.run(service.deps as never, [account.id], { 'sms-senders': '+34600111222, ACME Shop' });
  assert.deepStrictEqual(set.ok && (set.value.json as { smsSenders: string[] }).smsSenders, ['+34600111222', 'ACME Shop']);
  assert.match(set.ok ? set.value.text : '', /^ {2}sms senders {7}\+34600111222 \(default\), ACME Shop$/m);
  const cleared = await accountUpdate.run(service.deps as never, [account.id], { 'sms-senders': '' });
  assert.deepStrictEqual(cleared.ok && (cleared.value.json as { smsSenders: string[] }).smsSenders, []);
});
