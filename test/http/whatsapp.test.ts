// POST /v1/whatsapp/sendTemplateMessage over HTTP: the success body with the balance
// in currency units, and each error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { addWhatsappTemplate, get, keyWithScopes, openAccount, post, readAccount, startService, UUID } from '../support/service.ts';

const URL = '/v1/whatsapp/sendTemplateMessage';

/** Balance 1.0000 and a price of 0.0500 per message (integer units of 0.0001). */
async function walletAccount(service: Service, input: Parameters<typeof openAccount>[1] = {}) {
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, ...input });
  const template = await addWhatsappTemplate(service, account.id);
  return { ...account, templateId: template.id };
}

test('a WhatsApp template message gets 200 with the balance after the send, 1.00 - 0.05 = 0.95', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.match(body.msgid, UUID);
  assert.deepStrictEqual(body, { result: 'WhatsApp message queued for delivery', current_balance: 0.95, msgid: body.msgid });
  assert.equal(JSON.parse(res.body).current_balance, 0.95);
  assert.match(res.body, /"current_balance":0\.95[,}]/);
});

test('the WhatsApp send takes the price from the stored balance', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.equal((await readAccount(service, account.id)).balance, 9_500);
});

test('twenty sends at 0.05 from 1.00 leave exactly 0 and the next gets 401 Insufficient balance', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const balances: number[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', String(i)] });
    assert.equal(res.statusCode, 200);
    balances.push(res.json().current_balance);
  }
  assert.equal(balances[0], 0.95);
  assert.equal(balances[1], 0.9);
  assert.equal(balances[18], 0.05);
  assert.equal(balances[19], 0);
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', 'x'] });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Insufficient balance' });
});

test('a destination written with a leading + is accepted', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const res = await post(service, URL, account.apiKey, { destination: '+5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 200);
});

test('a delivered WhatsApp message is captured as the Cloud API body with its params in order', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  await service.worker.drain();
  const raw = await get(service, `/v1/messages/${res.json().msgid}/raw`, account.apiKey);
  assert.equal(raw.statusCode, 200);
  assert.deepStrictEqual(raw.json(), {
    messaging_product: 'whatsapp', recipient_type: 'individual', to: '5215512345678', type: 'template',
    template: { name: 'otp_code', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: '1234' }] }] },
  });
});

const INVALID_DESTINATIONS: readonly [string, unknown][] = [
  ['missing', undefined],
  ['letters', 'abc'],
  ['too short', '1234'],
  ['with spaces', '52 155 1234 5678'],
  ['a number, not a string', 5215512345678],
];

for (const [what, destination] of INVALID_DESTINATIONS) {
  test(`a destination that is ${what} gets 400 Invalid destination`, async (t) => {
    const service = await startService(t);
    const account = await walletAccount(service);
    const res = await post(service, URL, account.apiKey, { destination, templateId: account.templateId, params: ['Ana', '1234'] });
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: 'Invalid destination' });
  });
}

test('an unknown templateId gets 400 Could not find template', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: 'no-such-template', params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
});

test('a missing templateId gets 400 Could not find template', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
});

for (const status of ['PENDING', 'REJECTED'] as const) {
  test(`a ${status} template gets 400 Could not find template`, async (t) => {
    const service = await startService(t);
    const account = await walletAccount(service);
    const template = await addWhatsappTemplate(service, account.id, { status });
    const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'] });
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
  });
}

test('another account\'s approved template gets 400 Could not find template', async (t) => {
  const service = await startService(t);
  const owner = await walletAccount(service);
  const other = await walletAccount(service);
  const res = await post(service, URL, other.apiKey, { destination: '5215512345678', templateId: owner.templateId, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
});

const PARAM_MISMATCHES: readonly [string, unknown][] = [
  ['one param for a template of two', ['Ana']],
  ['three params for a template of two', ['Ana', '1234', 'extra']],
  ['no params for a template of two', undefined],
  ['an empty list for a template of two', []],
  ['a number among the params', ['Ana', 1234]],
  ['params given as a string', 'Ana,1234'],
];

for (const [what, params] of PARAM_MISMATCHES) {
  test(`${what} gets 400 Params do not match the template`, async (t) => {
    const service = await startService(t);
    const account = await walletAccount(service);
    const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params });
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: 'Params do not match the template' });
  });
}

test('a balance below the price gets 401 Insufficient balance and is left untouched', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service, { balance: 499 });
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'Insufficient balance' });
  assert.equal((await readAccount(service, account.id)).balance, 499);
});

test('an account with the WhatsApp service off gets 401 current service is not active', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service, { services: { whatsapp: false } });
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('an inactive account gets 401 current service is not active on WhatsApp', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service, { active: false });
  const res = await post(service, URL, account.apiKey, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'current service is not active' });
});

test('a key without the whatsapp scope gets 401 API key not authorized.', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const key = await keyWithScopes(service, account.id, ['email', 'sms']);
  const res = await post(service, URL, key, { destination: '5215512345678', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 401);
  assert.deepStrictEqual(res.json(), { message: 'API key not authorized.' });
});

test('a WhatsApp body that is a JSON array gets 400 err 1', async (t) => {
  const service = await startService(t);
  const account = await walletAccount(service);
  const res = await post(service, URL, account.apiKey, []);
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, missing parameters. err 1' });
});
