// The OpenAPI document as a contract: `redocly lint` (recommended rules) finds no
// error, every operation has an operationId and a stated security, internal endpoints
// are left out, and real answers of the service match the document's schemas (Ajv).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { REPO, runToEnd } from '../support/child-process.ts';
import { answerChecker } from '../support/openapi-answers.ts';
import { ADMIN_TOKEN, addWhatsappTemplate, emailBody, keyWithScopes, openAccount, smsBody, startService } from '../support/service.ts';

const PUBLIC_URL = 'https://api.herald.test';

async function documentOf(t: TestContext, env: Record<string, string> = {}): Promise<{ service: Service; doc: ReturnType<typeof JSON.parse> }> {
  const service = await startService(t, { env: { HERALD_PUBLIC_URL: PUBLIC_URL, ...env } });
  const res = await service.http.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  return { service, doc: res.json() };
}

type Operation = { operationId?: string; security?: unknown[] };
const operations = (doc: { paths: Record<string, Record<string, Operation>> }): [string, Operation][] =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]));

test('redocly lint with the recommended rules finds no error in the document', async (t) => {
  const { doc } = await documentOf(t);
  const dir = mkdtempSync(join(tmpdir(), 'herald-openapi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const run = await runToEnd(join(REPO, 'node_modules/.bin/redocly'), ['lint', file, '--config', join(REPO, 'redocly.yaml'), '--format=json', '--max-problems=5000'], {
    ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  });
  const report = JSON.parse(run.stdout) as { problems: { severity: string; ruleId: string; message: string; location: { pointer: string }[] }[] };
  const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
  assert.deepStrictEqual(errors, []);
});

test('every operation has a unique operationId, the sends the names a client expects', async (t) => {
  const { doc } = await documentOf(t);
  const ids = operations(doc).map(([, op]) => op.operationId);
  assert.equal(ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(id)).length, 0, String(ids));
  assert.equal(new Set(ids).size, ids.length);
  const byRoute = Object.fromEntries(operations(doc).map(([route, op]) => [route, op.operationId]));
  assert.deepStrictEqual(
    ['POST /v1/email', 'POST /v1/sms/send', 'POST /v1/whatsapp/sendTemplateMessage', 'POST /v1/whatsapp/sendMessage', 'GET /v1/messages/{msgid}'].map((r) => byRoute[r]),
    ['sendEmail', 'sendSms', 'sendWhatsappTemplate', 'sendWhatsappMessage', 'getMessage'],
  );
});

test('every operation states its security: a scheme, or [] for the public ones', async (t) => {
  const { doc } = await documentOf(t);
  assert.deepStrictEqual(operations(doc).filter(([, op]) => !Array.isArray(op.security)).map(([route]) => route), []);
  const byRoute = Object.fromEntries(operations(doc));
  assert.deepStrictEqual([byRoute['POST /v1/auth/sign-in']?.security, byRoute['GET /.well-known/jwks.json']?.security], [[], []]);
  assert.deepStrictEqual(byRoute['POST /v1/email']?.security, [{ bearerAuth: ['email'] }]);
});

test('the servers are the public URL, and the tracking, unsubscribe, confirmation and Meta webhook endpoints are not in the document', async (t) => {
  const { doc } = await documentOf(t);
  assert.deepStrictEqual(doc.servers, [{ url: PUBLIC_URL, description: 'This herald' }]);
  assert.deepStrictEqual(Object.keys(doc.paths).filter((p) => /^\/(t|u|confirm|webhooks)\//.test(p)), []);
});

test('the send routes document 403, 413, 415, 429 and 500, and POST /v1/email its own fields', async (t) => {
  const { doc } = await documentOf(t);
  for (const route of ['/v1/email', '/v1/sms/send', '/v1/whatsapp/sendTemplateMessage', '/v1/whatsapp/sendMessage']) {
    const statuses = Object.keys(doc.paths[route].post.responses);
    for (const status of ['200', '400', '401', '403', '413', '415', '429', '500']) assert.ok(statuses.includes(status), `${route} ${status}`);
  }
  const fields = Object.keys(doc.paths['/v1/email'].post.requestBody.content['application/json'].schema.properties);
  for (const field of ['tracking', 'certified', 'campaign', 'metadata']) assert.ok(fields.includes(field), field);
});

test('the reference page is titled "herald API" and carries herald\'s mark, not Fastify\'s logo', async (t) => {
  const { service } = await documentOf(t);
  const page = await service.http.inject({ method: 'GET', url: '/docs/' });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<title>herald API<\/title>/);
  const initializer = await service.http.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  const fastifyLogo = readFileSync(join(REPO, 'node_modules/@fastify/swagger-ui/static/logo.svg')).toString('base64');
  assert.equal(initializer.body.includes(fastifyLogo), false);
  const mark = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body)?.[1] ?? '';
  assert.match(Buffer.from(mark, 'base64').toString('utf8'), />herald API<\/text>/);
});

test('real answers across the routes match the document\'s schemas', async (t) => {
  const { service, doc } = await documentOf(t, { HERALD_BODY_LIMIT: '4096' });
  const checker = answerChecker(doc);
  const problems: string[] = [];
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, options: { key?: string; admin?: boolean; body?: unknown; type?: string } = {}): Promise<LightMyRequestResponse> => {
    const authorization = options.admin === true ? `Bearer ${ADMIN_TOKEN}` : options.key === undefined ? undefined : `Bearer ${options.key}`;
    const res = await service.http.inject({
      method, url,
      headers: { ...(authorization === undefined ? {} : { authorization }), ...(options.body === undefined ? {} : { 'content-type': options.type ?? 'application/json' }) },
      ...(options.body === undefined ? {} : { payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
    });
    problems.push(...checker.check(method, url, res));
    return res;
  };
  const account = await openAccount(service);
  const key = account.apiKey;
  const smsOnly = await keyWithScopes(service, account.id, ['sms']);
  const waTemplate = await addWhatsappTemplate(service, account.id);

  // Sends: accepted, refused by the spec's rules, by scope, by authentication, by body.
  const sent = await call('POST', '/v1/email', { key, body: emailBody({ metadata: { order: 7 }, campaign: 'july', tracking: { opens: false }, certified: false }) });
  assert.equal(sent.statusCode, 200, sent.body);
  const msgid: string = sent.json().to[0].msgid;
  await call('POST', '/v1/email', { key, body: emailBody({ subject: '' }) });
  await call('POST', '/v1/email', { key: smsOnly, body: emailBody() });
  await call('POST', '/v1/email', { body: emailBody() });
  await call('POST', '/v1/email', { key: 'not-a-key', body: emailBody() });
  await call('POST', '/v1/email', { key, body: 'hello', type: 'text/plain' });
  await call('POST', '/v1/email', { key, body: emailBody({ body: 'x'.repeat(5000) }) });
  await call('POST', '/v1/email', { key, body: '{"to":' });
  await call('POST', '/v1/sms/send', { key, body: smsBody() });
  await call('POST', '/v1/sms/send', { key, body: smsBody({ mobile_numbers: ['12'] }) });
  await call('POST', '/v1/whatsapp/sendTemplateMessage', { key, body: { destination: '+5215512345678', templateId: waTemplate.id, params: ['Ana', '1234'] } });
  await call('POST', '/v1/whatsapp/sendMessage', { key, body: { destination: '+5215512345678', message: 'Hi' } });
  await service.worker.drain();

  // Messages, with their delivery events (attempt, peer, response).
  const message = await call('GET', `/v1/messages/${msgid}`, { key });
  assert.ok(message.json().events.some((e: { peer?: string }) => e.peer === 'capture'), message.body);
  await call('GET', '/v1/messages', { key });
  await call('GET', '/v1/messages?status=nonsense', { key });
  await call('GET', `/v1/messages/${msgid}/raw`, { key });
  await call('GET', '/v1/messages/00000000-0000-7000-8000-000000000000', { key });

  // Templates, domains, suppressions, webhooks, lists, contacts, campaigns, the account.
  const template = await call('POST', '/v1/email/templates', { key, body: { name: 'welcome', subject: 'Hi {{name}}', html: '<p>Hi {{name}}</p>' } });
  const templateId: string = template.json().template_id;
  await call('GET', '/v1/email/templates', { key });
  await call('GET', `/v1/email/templates/${templateId}`, { key });
  await call('PUT', `/v1/email/templates/${templateId}`, { key, body: { name: 'welcome', html: '<p>Hello {{name}}</p>' } });
  await call('POST', '/v1/email/templates/render', { key, body: { template_id: templateId, variables: { name: 'Ana' } } });
  await call('DELETE', `/v1/email/templates/${templateId}`, { key });
  await call('GET', `/v1/email/templates/${templateId}`, { key });
  await call('GET', '/v1/whatsapp/templates', { key });
  await call('GET', '/v1/domains', { key });
  await call('POST', '/v1/domains', { key, body: { domain: 'news.acme.org' } });
  await call('POST', '/v1/domains', { key, body: { domain: 'news.acme.org' } });
  await call('GET', '/v1/domains/news.acme.org', { key });
  await call('POST', '/v1/suppressions', { key, body: { emails: ['gone@example.org'] } });
  await call('GET', '/v1/suppressions', { key });
  await call('GET', '/v1/webhooks', { key });
  await call('PUT', '/v1/webhooks', { key, body: { url: 'https://hooks.example.com/herald' } });
  await call('GET', '/v1/webhooks/deliveries', { key });
  const list = await call('POST', '/v1/lists', { key, body: { name: 'Weekly' } });
  await call('GET', '/v1/lists', { key });
  await call('GET', `/v1/lists/${list.json().list_id}`, { key });
  await call('POST', '/v1/contacts', { key, body: { email: 'ana@example.org', list_ids: [list.json().list_id] } });
  await call('GET', '/v1/contacts', { key });
  await call('GET', '/v1/campaigns', { key });
  await call('GET', '/v1/account', { key });
  await call('GET', '/v1/api-keys', { key });
  await call('POST', '/v1/api-keys', { key, body: { name: 'ci', scopes: ['sms'] } });
  await call('GET', '/v1/usage', { key });
  await call('GET', '/v1/ledger', { key });
  await call('GET', '/v1/smtp-settings', { key });
  await call('GET', '/v1/users', { key });

  // The rate limit, the operator API, sign-in, the receipt keys.
  const slow = await openAccount(service, { name: 'slow', rateLimitPerSecond: 1 });
  await call('GET', '/v1/account', { key: slow.apiKey });
  const limited = await call('GET', '/v1/account', { key: slow.apiKey });
  assert.equal(limited.statusCode, 429);
  await call('GET', '/admin/v1/accounts', { admin: true });
  await call('GET', '/admin/v1/accounts');
  await call('POST', '/admin/v1/accounts', { admin: true, body: { name: 'globex' } });
  await call('POST', '/admin/v1/accounts', { admin: true, body: { name: 'GLOBEX' } });
  await call('GET', `/admin/v1/accounts/${account.id}`, { admin: true });
  await call('GET', '/admin/v1/accounts/nope', { admin: true });
  await call('GET', `/admin/v1/accounts/${account.id}/ledger`, { admin: true });
  await call('POST', '/v1/auth/sign-in', { body: { email: 'nobody@example.org', password: 'wrong password here' } });
  await call('GET', '/.well-known/jwks.json');

  assert.deepStrictEqual(problems, []);
  assert.ok(checker.covered.size >= 40, `${checker.covered.size} operations covered`);
});

test('the answer check fails on a body the schema does not describe', async (t) => {
  const { service, doc } = await documentOf(t);
  const account = await openAccount(service);
  const res = await service.http.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${account.apiKey}` } });
  const checker = answerChecker(doc);
  assert.deepStrictEqual(checker.check('GET', '/v1/account', res), []);
  const altered = { ...res, body: JSON.stringify({ ...res.json(), account_id: 7 }) } as LightMyRequestResponse;
  assert.match(checker.check('GET', '/v1/account', altered).join('\n'), /^GET \/v1\/account 200: data\/account_id must be string/);
  assert.deepStrictEqual(checker.check('GET', '/v1/account', { ...res, statusCode: 418 } as LightMyRequestResponse), ['GET /v1/account 418: status not in the document (200, 401, 403, 429, 500, 503)']);
});
