// WhatsApp templates the account creates (POST /v1/whatsapp/templates): stored PENDING,
// kept in herald without a WhatsApp Business account, otherwise submitted to Meta's
// template management by the whatsapp-templates job, here against a loopback stand-in
// of the Graph API (test/peers/whatsapp-cloud-api.ts).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { submitQueuedWhatsappTemplates } from '../../src/app/submit-whatsapp-templates.ts';
import { submitCloudApiTemplate } from '../../src/channels/whatsapp/cloud-api-templates.ts';
import type { Service } from '../../src/service.ts';
import { metaErrorBody, startCloudApiStandIn, type CloudApiStandIn } from '../peers/whatsapp-cloud-api.ts';
import { ADMIN_TOKEN, get, keyWithScopes, openAccount, post, startService } from '../support/service.ts';
import { asUser, signedInUser, usersWorld } from '../support/users.ts';

const OTP = { name: 'order_ready', language: 'en_US', category: 'UTILITY', header: 'Your order', body: 'Hi {{1}}, order {{2}} is ready.', footer: 'Acme Shop' };
const WABA = { whatsappBusinessAccountId: '102290129340398', whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: 'EAAG-token' };

/** One turn of the submission job against the stand-in. */
function submitTurn(service: Service, peer: CloudApiStandIn): Promise<number> {
  const graph = { baseUrl: peer.baseUrl };
  return submitQueuedWhatsappTemplates({
    db: service.deps.db, clock: service.deps.clock,
    submit: (waba, token, template, signal) => submitCloudApiTemplate(graph, waba, token, template, signal),
  }, new AbortController().signal);
}

async function listed(service: Service, apiKey: string): Promise<Record<string, unknown>[]> {
  const res = await get(service, '/v1/whatsapp/templates', apiKey);
  assert.equal(res.statusCode, 200);
  return res.json().templates;
}

async function configured(t: TestContext) {
  const service = await startService(t);
  const peer = await startCloudApiStandIn(t);
  const account = await openAccount(service, WABA);
  return { service, peer, account };
}

test('without a WhatsApp Business account a new template is stored PENDING and kept in herald', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);
  assert.equal(res.statusCode, 201, res.body);
  const { templateId, ...rest } = res.json();
  assert.deepStrictEqual(rest, {
    name: 'order_ready', language: 'en_US', body: 'Hi {{1}}, order {{2}} is ready.', status: 'PENDING', paramCount: 2,
    category: 'UTILITY', header: 'Your order', footer: 'Acme Shop', submission: 'local', submissionError: null,
  });
  assert.deepStrictEqual((await listed(service, account.apiKey)).map((x) => [x.templateId, x.status, x.submission]), [[templateId, 'PENDING', 'local']]);
});

test('a new template of an account with a WhatsApp Business account is submitted to Meta with its token and components', async (t) => {
  const { service, peer, account } = await configured(t);
  const res = await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);
  assert.equal(res.json().submission, 'queued');

  assert.equal(await submitTurn(service, peer), 1);

  assert.deepStrictEqual(peer.requests.map((r) => [r.method, r.path, r.headers.authorization]), [['POST', '/v23.0/102290129340398/message_templates', 'Bearer EAAG-token']]);
  assert.deepStrictEqual(peer.requests[0]?.json, {
    name: 'order_ready', language: 'en_US', category: 'UTILITY',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Your order' },
      { type: 'BODY', text: 'Hi {{1}}, order {{2}} is ready.', example: { body_text: [['sample 1', 'sample 2']] } },
      { type: 'FOOTER', text: 'Acme Shop' },
    ],
  });
  const [template] = await listed(service, account.apiKey);
  assert.deepStrictEqual([template?.status, template?.submission, template?.submissionError], ['PENDING', 'submitted', null]);
});

test('a submitted template is not submitted again on the next turn', async (t) => {
  const { service, peer, account } = await configured(t);
  await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);
  await submitTurn(service, peer);
  assert.equal(await submitTurn(service, peer), 0);
  assert.equal(peer.requests.length, 1);
});

test('a template Meta refuses is REJECTED with Meta\'s reason', async (t) => {
  const { service, peer, account } = await configured(t);
  peer.answer({ kind: 'error', status: 400, body: metaErrorBody(100, 'Invalid parameter', { error_user_msg: 'Template name order_ready already exists in en_US' }) });
  await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);

  await submitTurn(service, peer);

  const [template] = await listed(service, account.apiKey);
  assert.deepStrictEqual([template?.status, template?.submission, template?.submissionError], ['REJECTED', 'refused', 'Template name order_ready already exists in en_US']);
});

test('a template Meta answers with 503 stays queued with the reason, and is not tried again within a minute', async (t) => {
  const { service, peer, account } = await configured(t);
  peer.answer({ kind: 'error', status: 503, body: metaErrorBody(2, 'Service temporarily unavailable') });
  await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);

  await submitTurn(service, peer);
  await submitTurn(service, peer);

  const [template] = await listed(service, account.apiKey);
  assert.deepStrictEqual([template?.status, template?.submission, template?.submissionError], ['PENDING', 'queued', 'Service temporarily unavailable']);
  assert.equal(peer.requests.length, 1);
});

test('a web session of a developer creates a template; a viewer\'s is refused', async (t) => {
  const world = await usersWorld(t);
  const developer = await signedInUser(world, 'dev@acme.test', 'developer');
  const viewer = await signedInUser(world, 'view@acme.test', 'viewer');
  const created = await asUser(world.service, developer, 'POST', '/v1/whatsapp/templates', OTP);
  assert.equal(created.statusCode, 201, created.body);
  const refused = await asUser(world.service, viewer, 'POST', '/v1/whatsapp/templates', { ...OTP, name: 'other' });
  assert.deepStrictEqual([refused.statusCode, refused.json()], [401, { message: 'API key not authorized.' }]);
  assert.equal((await listed(world.service, world.account.apiKey)).length, 1);
});

test('a key without the whatsapp scope is refused', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const emailOnly = await keyWithScopes(service, account.id, ['email']);
  const res = await post(service, '/v1/whatsapp/templates', emailOnly, OTP);
  assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'API key not authorized.' }]);
});

test('another account does not see the template', async (t) => {
  const service = await startService(t);
  const acme = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  await post(service, '/v1/whatsapp/templates', acme.apiKey, OTP);
  assert.deepStrictEqual(await listed(service, other.apiKey), []);
});

test('bad templates are refused with 400 and herald\'s words', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const cases: [Record<string, unknown>, unknown][] = [
    [{ ...OTP, body: 'Hi {{name}}' }, { message: 'Incorrect variable syntax' }],
    [{ ...OTP, name: 'Order Ready' }, { message: 'Invalid request, a field has the wrong type or value', detail: 'name must be 1 to 512 lowercase letters, digits and underscores' }],
    [{ ...OTP, category: 'PROMO' }, { message: 'Invalid request, a field has the wrong type or value', detail: 'category must be one of UTILITY, MARKETING, AUTHENTICATION' }],
    [{ ...OTP, header: 'Hi {{1}}' }, { message: 'Invalid request, a field has the wrong type or value', detail: 'header: must not hold placeholders' }],
    [{ ...OTP, footer: 'x'.repeat(61) }, { message: 'Invalid request, a field has the wrong type or value', detail: 'footer must be a string of at most 60 characters' }],
  ];
  const answers = [];
  for (const [body] of cases) {
    const res = await post(service, '/v1/whatsapp/templates', account.apiKey, body);
    answers.push([res.statusCode, res.json()]);
  }
  assert.deepStrictEqual(answers, cases.map(([, answer]) => [400, answer]));
});

test('a second template of the same name and language is refused', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);
  const res = await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);
  assert.deepStrictEqual([res.statusCode, res.json()], [400, {
    message: 'Invalid request, a field has the wrong type or value', detail: 'name: the account already has a template order_ready in en_US',
  }]);
});

test('a service delivering through the Cloud API runs the submission job on its own', async (t) => {
  const peer = await startCloudApiStandIn(t);
  const service = await startService(t, { worker: true, env: { HERALD_WHATSAPP_TRANSPORT: peer.baseUrl } });
  const account = await openAccount(service, WABA);
  await post(service, '/v1/whatsapp/templates', account.apiKey, OTP);
  const deadline = Date.now() + 10_000;
  while ((await listed(service, account.apiKey))[0]?.submission !== 'submitted') {
    assert.ok(Date.now() < deadline, 'not submitted within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepStrictEqual(peer.requests.map((r) => r.path), ['/v23.0/102290129340398/message_templates']);
});

test('the operator sets an account\'s WhatsApp Business account id, and a value that is not digits is refused', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const patch = (body: unknown) => service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${account.id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(body),
  });
  const set = await patch({ whatsappBusinessAccountId: '102290129340398' });
  assert.deepStrictEqual([set.statusCode, set.json().whatsappBusinessAccountId], [200, '102290129340398']);
  const bad = await patch({ whatsappBusinessAccountId: 'waba-1' });
  assert.deepStrictEqual([bad.statusCode, bad.json()], [400, {
    message: 'Invalid request, a field has the wrong type or value', detail: 'whatsappBusinessAccountId: must be null or the WhatsApp Business account id, a string of digits',
  }]);
});
