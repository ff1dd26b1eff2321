// WhatsApp delivery inside the service: a template message accepted over HTTP,
// delivered by the outbox worker through the Cloud API transport to the stand-in,
// and what each answer does to the message and the balance.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, addWhatsappTemplate, get, openAccount, post, readAccount, startService } from '../../support/service.ts';
import { cloudApiWorker, metaErrorBody, startCloudApiStandIn } from '../../peers/whatsapp-cloud-api.ts';

const T0 = Date.UTC(2030, 0, 1);

/** A template message for an account with balance 1.00 and price 0.05, accepted but not yet delivered. */
async function acceptedMessage(t: TestContext, credentials: { whatsappPhoneNumberId?: string; whatsappAccessToken?: string }) {
  const now = { value: T0 };
  const service = await startService(t, { clock: () => now.value });
  const peer = await startCloudApiStandIn(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, ...credentials });
  const template = await addWhatsappTemplate(service, account.id);
  const res = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination: '5215512345678', templateId: template.id, params: ['Ana', '1234'] });
  assert.equal(res.statusCode, 200);
  const worker = cloudApiWorker(service, peer.baseUrl, () => now.value);
  const view = async () => (await get(service, `/v1/messages/${res.json().msgid}`, account.apiKey)).json();
  return { service, account, peer, worker, view };
}

const CONFIGURED = { whatsappPhoneNumberId: '106540352242922', whatsappAccessToken: 'EAAG-token' };

test('an account without Cloud API credentials: the message fails and the price is refunded', async (t) => {
  const { service, account, peer, worker, view } = await acceptedMessage(t, {});

  await worker.drain();

  const message = await view();
  assert.equal(message.status, 'failed');
  assert.deepStrictEqual(message.events.at(-1), {
    type: 'failed', at: '2030-01-01T00:00:00.000Z', attempt: 1, peer: new URL(peer.baseUrl).host, response: 'WhatsApp is not configured for this account', refunded: true,
  });
  assert.equal((await readAccount(service, account.id)).balance, 10_000);
  assert.equal(peer.requests.length, 0);
});

test('a phone number id without a token counts as not configured', async (t) => {
  const { worker, view } = await acceptedMessage(t, { whatsappPhoneNumberId: '106540352242922' });
  await worker.drain();
  assert.equal((await view()).events.at(-1).response, 'WhatsApp is not configured for this account');
});

test('a message Meta refuses with 400 fails and is not refunded', async (t) => {
  const { service, account, peer, worker, view } = await acceptedMessage(t, CONFIGURED);
  peer.answer({ kind: 'error', status: 400, body: metaErrorBody(131030, '(#131030) Recipient phone number not in allowed list') });

  await worker.drain();

  const message = await view();
  assert.equal(message.status, 'failed');
  assert.equal(message.events.at(-1).response, 'HTTP 400 error 131030: (#131030) Recipient phone number not in allowed list');
  assert.equal((await readAccount(service, account.id)).balance, 9_500);
});

test('a message Meta answers with 429 is deferred and stays in the outbox', async (t) => {
  const { service, peer, worker, view } = await acceptedMessage(t, CONFIGURED);
  peer.answer({ kind: 'error', status: 429, body: metaErrorBody(130429, '(#130429) Rate limit hit') });

  await worker.drain();

  assert.equal((await view()).status, 'deferred');
  const rows = await service.store.db.selectFrom('outbox').select('available_at').execute();
  assert.deepStrictEqual(rows.map((r) => Number(r.available_at)), [T0 + 30_000]);
});

test('the token the operator stored last is the one sent', async (t) => {
  const { service, account, peer, worker } = await acceptedMessage(t, CONFIGURED);
  const patched = await service.http.inject({
    method: 'PATCH', url: `/admin/v1/accounts/${account.id}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ whatsappAccessToken: 'EAAG-rotated' }),
  });
  assert.equal(patched.statusCode, 200);

  await worker.drain();

  assert.equal(peer.requests[0]?.headers.authorization, 'Bearer EAAG-rotated');
});
