import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startService } from '../support/service.ts';

test('/openapi.json is an OpenAPI 3.1 document of version 1.0.0 listing the three operations', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  for (const path of ['/v1/email', '/v1/sms/send', '/v1/whatsapp/sendTemplateMessage']) {
    assert.ok(doc.paths[path]?.post, `${path} is documented`);
  }
  assert.deepStrictEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  assert.deepStrictEqual(Object.keys(doc.paths['/v1/email'].post.responses).sort(), ['200', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
});

test('/docs serves the reference page', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: '/docs/' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
});

test('/healthz answers while the process is up', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: '/healthz' });
  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), { status: 'ok' });
});

test('/readyz answers ready while the database answers, and 503 once it is gone', async (t) => {
  const service = await startService(t);
  const ready = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([ready.statusCode, ready.json()], [200, { status: 'ready' }]);

  await service.store.db.destroy();
  const gone = await service.http.inject({ method: 'GET', url: '/readyz' });
  assert.deepStrictEqual([gone.statusCode, gone.json()], [503, { message: 'Service temporarily unavailable, please try again' }]);
});

test('an unknown path gets 404 with a JSON body', async (t) => {
  const service = await startService(t);
  const res = await service.http.inject({ method: 'GET', url: '/v2/nothing' });
  assert.equal(res.statusCode, 404);
  assert.deepStrictEqual(res.json(), { message: 'Not found' });
});

test('/openapi.json documents every public event type in its webhooks section, signed per Standard Webhooks', async (t) => {
  const service = await startService(t);
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json();
  assert.deepStrictEqual(Object.keys(doc.webhooks), [
    'email.sent', 'email.delivered', 'email.deferred', 'email.bounced', 'email.failed', 'email.dropped', 'email.opened', 'email.clicked',
    'email.unsubscribed', 'email.complained', 'email.certified', 'email.received', 'email.scheduled', 'email.cancelled',
    'sms.sent', 'sms.delivered', 'sms.failed', 'sms.dropped', 'sms.received', 'sms.opted_out', 'sms.opted_in', 'sms.scheduled', 'sms.cancelled',
    'whatsapp.sent', 'whatsapp.delivered', 'whatsapp.read', 'whatsapp.failed',
    'whatsapp.dropped', 'whatsapp.received', 'whatsapp.opted_out', 'whatsapp.opted_in', 'whatsapp.scheduled', 'whatsapp.cancelled',
  ]);
  const delivered = doc.webhooks['email.delivered'].post;
  assert.deepStrictEqual(delivered.parameters.map((p: { name: string }) => p.name), ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  assert.equal(delivered.requestBody.content['application/json'].schema.properties.type.const, 'email.delivered');
});
