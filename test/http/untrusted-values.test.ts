// Values a client can put where a string belongs: objects whose toString is not a
// function, lone surrogates, control characters. Each gets its proper 4xx, and the
// service logs no error (an exception turned into a 400 would be a hidden bug).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { captureLog, type CapturedLog } from '../support/captured-log.ts';
import { addWhatsappTemplate, ADMIN_TOKEN, emailBody, openAccount, post, smsBody, startService, type TestAccount } from '../support/service.ts';

async function started(t: TestContext): Promise<{ service: Service; account: TestAccount; log: CapturedLog }> {
  const log = captureLog();
  const service = await startService(t, { logger: log.logger });
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500 });
  t.after(() => assert.deepStrictEqual(log.errors(), []));
  return { service, account, log };
}

function admin(service: Service, method: 'POST' | 'PATCH', url: string, body: string) {
  return service.http.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: body });
}

test('an SMS number that is an object with a toString key gets the wrong-structure 400', async (t) => {
  const { service, account } = await started(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, '{"message":"hi","mobile_numbers":[{"toString":1}]}');
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'The mobile number has the wrong structure!', error: [{ mobile_number: '[object Object]' }] });
});

test('an SMS number with a control character gets the wrong-structure 400', async (t) => {
  const { service, account } = await started(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+5215512345678\n'] }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'The mobile number has the wrong structure!', error: [{ mobile_number: '+5215512345678\n' }] });
});

test('an SMS number with a lone surrogate gets the wrong-structure 400', async (t) => {
  const { service, account } = await started(t);
  const res = await post(service, '/v1/sms/send', account.apiKey, '{"message":"hi","mobile_numbers":["+52155123\\ud80045678"]}');
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'The mobile number has the wrong structure!', error: [{ mobile_number: '+52155123\ud80045678' }] });
});

test('a WhatsApp destination with a lone surrogate or a control character is an invalid destination', async (t) => {
  const { service, account } = await started(t);
  const template = await addWhatsappTemplate(service, account.id);
  for (const destination of ['52155\\udc0012345678', '5215512345678\\u0000']) {
    const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, `{"destination":"${destination}","templateId":"${template.id}","params":["Ana","1"]}`);
    assert.equal(res.statusCode, 400, destination);
    assert.deepStrictEqual(res.json(), { message: 'Invalid destination' });
  }
});

test('a recipient address with a lone surrogate gets the wrong-structure 400 and nothing is stored', async (t) => {
  const { service, account } = await started(t);
  const res = await post(service, '/v1/email', account.apiKey, `{"to":[{"email":"ana\\ud800@example.org"}],${JSON.stringify(emailBody({ to: undefined })).slice(1)}`);
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'The recipient address has the wrong structure!', error: [{ email: 'ana\ud800@example.org' }] });
  const stored = await service.deps.db.selectFrom('messages').select('id').execute();
  assert.deepStrictEqual(stored, []);
});

test('a from address with a lone surrogate in its domain gets the wrong-structure 400', async (t) => {
  const { service, account } = await started(t);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ from: { email: 'news@exam\udfffple.com', name: 'News' } }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'The from address has the wrong structure!', error: [{ email: 'news@exam\udfffple.com' }] });
});

test('a recipient address with a control character gets the wrong-structure 400', async (t) => {
  const { service, account } = await started(t);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'ana\u0007@example.org' }] }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'The recipient address has the wrong structure!', error: [{ email: 'ana\u0007@example.org' }] });
});

test('a recipient that is an object with a toString key is not a recipient address', async (t) => {
  const { service, account } = await started(t);
  const res = await post(service, '/v1/email', account.apiKey, `{"to":[{"email":{"toString":1}}],${JSON.stringify(emailBody({ to: undefined })).slice(1)}`);
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'The recipient address has the wrong structure!', error: [{ email: '[object Object]' }] });
});

test('PATCH of an account with an ipAllowList entry that is an object with a toString key gets 400, not 500', async (t) => {
  const { service, account } = await started(t);
  const res = await admin(service, 'PATCH', `/admin/v1/accounts/${account.id}`, '{"ipAllowList":[{"toString":1}]}');
  assert.equal(res.statusCode, 400);
  // The operator schema or the allow-list parser may word it: either names the field, neither throws.
  assert.equal(res.json().message, 'Invalid request, a field has the wrong type or value');
  assert.match(res.json().detail, /^ipAllowList: /);
});

test('a new account with an ipAllowList entry that is an array holding such an object gets 400', async (t) => {
  const { service } = await started(t);
  const res = await admin(service, 'POST', '/admin/v1/accounts', '{"name":"acme","ipAllowList":[[{"toString":1}]]}');
  assert.equal(res.statusCode, 400);
  // The operator schema or the allow-list parser may word it: either names the field, neither throws.
  assert.equal(res.json().message, 'Invalid request, a field has the wrong type or value');
  assert.match(res.json().detail, /^ipAllowList: /);
});
