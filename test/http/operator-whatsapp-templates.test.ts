// The operator's list and removal of an account's WhatsApp templates (issue 24):
// GET and DELETE /admin/v1/accounts/:id/whatsapp-templates…, behind the admin token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { ADMIN_TOKEN, addWhatsappTemplate, openAccount, startService } from '../support/service.ts';

const NO_SUCH = '00000000-0000-4000-8000-000000000000';

function admin(service: Service, method: 'GET' | 'DELETE', url: string, token = ADMIN_TOKEN): Promise<LightMyRequestResponse> {
  return service.http.inject({ method, url, headers: { authorization: `Bearer ${token}` } });
}

test('the operator lists an account\'s WhatsApp templates, oldest first, with their status', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const first = await addWhatsappTemplate(service, account.id, { name: 'order_ready', body: 'Order {{1}} is ready', paramCount: 1 });
  const second = await addWhatsappTemplate(service, account.id, { name: 'welcome', body: 'Welcome', paramCount: 0, status: 'PENDING', createdAt: first.createdAt + 1 });
  const res = await admin(service, 'GET', `/admin/v1/accounts/${account.id}/whatsapp-templates`);
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    templates: [
      { templateId: first.id, name: 'order_ready', language: first.language, body: 'Order {{1}} is ready', status: first.status, paramCount: 1, category: 'UTILITY', header: null, footer: null, submission: 'local', submissionError: null },
      { templateId: second.id, name: 'welcome', language: second.language, body: 'Welcome', status: 'PENDING', paramCount: 0, category: 'UTILITY', header: null, footer: null, submission: 'local', submissionError: null },
    ],
  });
});

test('another account\'s templates are not listed', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  await addWhatsappTemplate(service, other.id);
  const res = await admin(service, 'GET', `/admin/v1/accounts/${account.id}/whatsapp-templates`);
  assert.deepStrictEqual(res.json(), { templates: [] });
});

test('the list of an account that does not exist answers 404', async (t) => {
  const service = await startService(t);
  const res = await admin(service, 'GET', `/admin/v1/accounts/${NO_SUCH}/whatsapp-templates`);
  assert.equal(res.statusCode, 404);
});

test('the operator removes a template, and it leaves the list', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const template = await addWhatsappTemplate(service, account.id);
  const res = await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/whatsapp-templates/${template.id}`);
  assert.equal(res.statusCode, 204);
  const list = await admin(service, 'GET', `/admin/v1/accounts/${account.id}/whatsapp-templates`);
  assert.deepStrictEqual(list.json(), { templates: [] });
});

test('removing another account\'s template, or one already removed, answers 404 and keeps it', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  const template = await addWhatsappTemplate(service, other.id);
  const res = await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/whatsapp-templates/${template.id}`);
  assert.equal(res.statusCode, 404);
  const kept = await admin(service, 'GET', `/admin/v1/accounts/${other.id}/whatsapp-templates`);
  assert.equal(kept.json().templates.length, 1);
  const notAnId = await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/whatsapp-templates/not-an-id`);
  assert.equal(notAnId.statusCode, 404);
});

test('both routes refuse a wrong admin token', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const list = await admin(service, 'GET', `/admin/v1/accounts/${account.id}/whatsapp-templates`, 'wrong-token');
  const remove = await admin(service, 'DELETE', `/admin/v1/accounts/${account.id}/whatsapp-templates/${NO_SUCH}`, 'wrong-token');
  assert.deepStrictEqual([list.statusCode, remove.statusCode], [401, 401]);
});
