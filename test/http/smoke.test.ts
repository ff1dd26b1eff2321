import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailBody, get, openAccount, post, startService } from '../support/service.ts';

test('an accepted email is delivered by the capture transport and readable as MIME', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.equal(body.message, 'Email queued for delivery');
  const msgid = body.to[0].msgid;
  await service.worker.drain();
  const view = await get(service, `/v1/messages/${msgid}`, account.apiKey);
  assert.equal(view.statusCode, 200);
  assert.equal(view.json().status, 'sent');
  const raw = await get(service, `/v1/messages/${msgid}/raw`, account.apiKey);
  assert.equal(raw.statusCode, 200);
  assert.match(raw.body, /Subject: Hello/);
  console.log(raw.body.slice(0, 800));
});
