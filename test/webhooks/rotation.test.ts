// Secret rotation: the new secret signs at once; the previous one signs as well, as a
// second `v1,` signature, for 24 hours, so receivers can switch without losing a post.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { call, startWebhookReceiver, subscribe, type WebhookReceiver } from '../peers/webhook-receiver.ts';
import { openAccount, post, smsBody, startService, type TestAccount } from '../support/service.ts';

const T0 = Date.UTC(2030, 0, 1);
const DAY = 24 * 3_600_000;

async function setUp(t: TestContext): Promise<{ service: Service; receiver: WebhookReceiver; account: TestAccount; old: string }> {
  t.mock.timers.enable({ apis: ['Date'], now: T0 });
  const service = await startService(t);
  const receiver = await startWebhookReceiver(t);
  const account = await openAccount(service);
  const old = await subscribe(service, account.apiKey, receiver);
  return { service, receiver, account, old };
}

/** One event posted now; returns what the receiver got. */
async function postOne(service: Service, receiver: WebhookReceiver, account: TestAccount) {
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  await service.worker.drain();
  await service.webhooks.drain();
  const event = receiver.received.at(-1);
  if (event === undefined) throw new Error(`nothing received; rejected: ${JSON.stringify(receiver.rejected.map((r) => r.reason))}`);
  return event;
}

test('a rotation answers the new secret and until when the previous one keeps signing', async (t) => {
  const { service, account, old } = await setUp(t);
  const res = await call(service, 'POST', '/v1/webhooks/secret/rotate', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.match(res.json().secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.notEqual(res.json().secret, old);
  assert.equal(res.json().previous_secret_expires_at, new Date(T0 + DAY).toISOString());
  assert.equal((await call(service, 'GET', '/v1/webhooks', account.apiKey)).json().secret, res.json().secret);
});

test('for 24 hours after a rotation each post carries two signatures, and either secret verifies it', async (t) => {
  const { service, receiver, account, old } = await setUp(t);
  const fresh = (await call(service, 'POST', '/v1/webhooks/secret/rotate', account.apiKey)).json().secret as string;
  receiver.secrets = [old, fresh];

  const atOnce = await postOne(service, receiver, account);
  t.mock.timers.setTime(T0 + DAY - 1);
  const lastMoment = await postOne(service, receiver, account);

  for (const event of [atOnce, lastMoment]) {
    assert.deepStrictEqual(event.verifiedBy, [old, fresh]);
    assert.match(event.signature, /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
  }
});

test('24 hours after a rotation only the new secret signs: a receiver still on the old one rejects the post', async (t) => {
  const { service, receiver, account, old } = await setUp(t);
  const fresh = (await call(service, 'POST', '/v1/webhooks/secret/rotate', account.apiKey)).json().secret as string;
  t.mock.timers.setTime(T0 + DAY);
  receiver.secrets = [old, fresh];
  const event = await postOne(service, receiver, account);
  assert.deepStrictEqual(event.verifiedBy, [fresh]);
  assert.match(event.signature, /^v1,[A-Za-z0-9+/]{43}=$/);

  receiver.secrets = [old];
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  await service.worker.drain();
  await service.webhooks.drain();
  assert.deepStrictEqual(receiver.rejected.map((r) => r.reason), ['No matching signature found']);
});

test('a second rotation within the window drops the oldest secret: only the last two sign', async (t) => {
  const { service, receiver, account, old } = await setUp(t);
  const second = (await call(service, 'POST', '/v1/webhooks/secret/rotate', account.apiKey)).json().secret as string;
  t.mock.timers.setTime(T0 + 60_000);
  const third = await call(service, 'POST', '/v1/webhooks/secret/rotate', account.apiKey);
  assert.equal(third.json().previous_secret_expires_at, new Date(T0 + 60_000 + DAY).toISOString());
  receiver.secrets = [old, second, third.json().secret];
  const event = await postOne(service, receiver, account);
  assert.deepStrictEqual(event.verifiedBy, [second, third.json().secret]);
});

test('a delivery waiting for its retry is signed with the secrets in force when it is posted, not when it was queued', async (t) => {
  const { service, receiver, account } = await setUp(t);
  await receiver.down();
  await post(service, '/v1/sms/send', account.apiKey, smsBody());
  await service.worker.drain();
  await service.webhooks.drain(); // refused
  const fresh = (await call(service, 'POST', '/v1/webhooks/secret/rotate', account.apiKey)).json().secret as string;
  t.mock.timers.setTime(T0 + DAY + 5_000);
  await receiver.up();
  receiver.secrets = [fresh];
  await service.webhooks.drain();
  assert.deepStrictEqual(receiver.received.map((e) => e.verifiedBy), [[fresh]]);
});
