// The TypeScript client (clients/typescript) against a real herald process: each send,
// the message log read back and paged through, a real webhook post verified, and the
// Idempotency-Key every send carries.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { HeraldClient, HeraldError, isBatchItemError, verifyWebhook, WebhookVerificationError, type EmailRequest } from '../../clients/typescript/src/herald-client.ts';
import { openClientAccount, startClientHerald, startLosingProxy, type ClientAccount, type ClientHerald } from '../support/client-world.ts';
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../peers/webhook-receiver.ts';
import { messagesLeftOf } from '../support/multi-process.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let herald: ClientHerald;
before(async () => { herald = await startClientHerald(); });
after(async () => { await herald?.stop(); });

const email: EmailRequest = {
  to: [{ email: 'ana@example.org' }],
  from: { email: 'news@example.com', name: 'Example News' },
  replyTo: { email: 'help@example.com', name: 'Help desk' },
  subject: 'Hello from herald',
  body: '<p>It works.</p>',
};

async function opened(): Promise<{ account: ClientAccount; client: HeraldClient }> {
  const account = await openClientAccount(herald);
  return { account, client: new HeraldClient({ baseUrl: herald.url, apiKey: account.apiKey }) };
}

/** A post as the receiver got it: the raw body and the three signature headers. */
interface Post {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/**
 * Points a new account's webhook at a receiver (test/peers/webhook-receiver.ts, which
 * verifies with the standardwebhooks package), sends an SMS, and answers its first post and the secret.
 */
async function oneWebhookPost(t: TestContext): Promise<{ post: Post; secret: string; msgid: string }> {
  const { client } = await opened();
  const receiver = await startWebhookReceiver(t);
  const { secret } = await client.setWebhookSettings({ url: receiver.url });
  receiver.secrets = [secret ?? ''];
  const sent = await client.sendSms({ message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] });
  const msgid = sent.messages?.[0]?.msgid ?? '';
  const post = await firstPost(receiver, (e) => e.payload.data.msgid === msgid, `post of ${msgid}`);
  return { post, secret: secret ?? '', msgid };
}

/** The first verified post the receiver got that `matches`, waited for up to 20 s. */
async function firstPost(receiver: WebhookReceiver, matches: (event: ReceivedEvent) => boolean, what: string): Promise<Post> {
  const deadline = Date.now() + 20_000;
  let event: ReceivedEvent | undefined;
  while ((event = receiver.received.find(matches)) === undefined) {
    assert.ok(Date.now() < deadline, `no ${what} within 20 s; rejected: ${JSON.stringify(receiver.rejected)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { body: event.body, headers: { 'webhook-id': event.id, 'webhook-timestamp': String(event.timestamp), 'webhook-signature': event.signature } };
}

test('an email, an SMS and a WhatsApp template sent with the client are read back by msgid', async () => {
  const { account, client } = await opened();
  const sentEmail = await client.sendEmail(email);
  const sentSms = await client.sendSms({ message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] });
  const sentWhatsapp = await client.sendWhatsappTemplate({ destination: '+5215512345679', templateId: account.templateId, params: ['Ana', '1234'] });
  assert.deepStrictEqual([sentEmail.message, sentSms.messages_left, sentWhatsapp.current_balance], ['Email queued for delivery', 98, 9.95]);

  const msgids = [sentEmail.to[0]?.msgid, sentSms.messages?.[0]?.msgid, sentWhatsapp.msgid].map(String);
  const read = await Promise.all(msgids.map((msgid) => client.getMessage(msgid)));
  assert.deepStrictEqual(read.map((m) => [m.msgid, m.channel, m.recipient]), [
    [msgids[0], 'email', 'ana@example.org'], [msgids[1], 'sms', '+5215512345678'], [msgids[2], 'whatsapp', '5215512345679'],
  ]);
});

test('the messages iterator follows the cursors through every page, newest first', async () => {
  const { account } = await opened();
  const pages: string[] = [];
  const counting: typeof fetch = (input, init) => {
    pages.push(String(input));
    return fetch(input, init);
  };
  const client = new HeraldClient({ baseUrl: herald.url, apiKey: account.apiKey, fetch: counting });
  const numbers = ['+5215500000001', '+5215500000002', '+5215500000003', '+5215500000004', '+5215500000005'];
  const sent = await client.sendSms({ message: 'Hello', mobile_numbers: numbers });
  pages.length = 0;

  const seen: string[] = [];
  for await (const message of client.messages({ channel: 'sms', limit: 2 })) seen.push(message.msgid);
  const all = await client.listMessages({ channel: 'sms', limit: 500 });
  assert.deepStrictEqual(seen, all.data.map((m) => m.msgid));
  assert.deepStrictEqual([...seen].sort(), (sent.messages ?? []).map((m) => String(m.msgid)).sort());
  assert.equal(pages.length - 1, 3, 'three pages of 2, 2 and 1, then the one listMessages call');
});

test('a real webhook post verifies with the account\'s secret', async (t) => {
  const { post, secret, msgid } = await oneWebhookPost(t);
  const event = verifyWebhook(post.body, post.headers, secret);
  assert.equal(event.data !== null && typeof event.data === 'object' && 'msgid' in event.data ? event.data.msgid : undefined, msgid);
  assert.match(event.type, /^sms\./);
});

test('a webhook post whose body was changed by one character does not verify', async (t) => {
  const { post, secret } = await oneWebhookPost(t);
  const tampered = post.body.replace('"sms"', '"SMS"');
  assert.notEqual(tampered, post.body);
  assert.throws(() => verifyWebhook(tampered, post.headers, secret), new WebhookVerificationError('no signature matches'));
});

test('a webhook post signed more than five minutes before the receiver\'s clock does not verify', async (t) => {
  const { post, secret } = await oneWebhookPost(t);
  const signedAt = Number(post.headers['webhook-timestamp']);
  assert.throws(() => verifyWebhook(post.body, post.headers, secret, { now: new Date((signedAt + 301) * 1000) }), new WebhookVerificationError('webhook-timestamp is too old'));
  assert.equal(verifyWebhook(post.body, post.headers, secret, { now: new Date((signedAt + 299) * 1000) }).type.startsWith('sms.'), true);
});

test('a send repeated with the same idempotency key answers the same msgids and is billed once', async () => {
  const { account, client } = await opened();
  const request = { message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] };
  const first = await client.sendSms(request, { idempotencyKey: 'order-1001' });
  const again = await client.sendSms(request, { idempotencyKey: 'order-1001' });
  assert.deepStrictEqual(again, first);
  assert.equal(await messagesLeftOf(herald, account.id), 99);
});

test('a send whose answer was lost is retried with the key the client made, and billed once', async () => {
  const { account } = await opened();
  const proxy = await startLosingProxy(herald.url, 1);
  try {
    const client = new HeraldClient({ baseUrl: proxy.url, apiKey: account.apiKey });
    const sent = await client.sendSms({ message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] });
    assert.equal(proxy.keys.length, 2);
    assert.match(proxy.keys[0] ?? '', UUID);
    assert.equal(proxy.keys[1], proxy.keys[0]);
    assert.equal(await messagesLeftOf(herald, account.id), 99);
    const listed = await new HeraldClient({ baseUrl: herald.url, apiKey: account.apiKey }).listMessages({ channel: 'sms' });
    assert.deepStrictEqual(listed.data.map((m) => m.msgid), [sent.messages?.[0]?.msgid]);
  } finally {
    await proxy.close();
  }
});

test('two sends of the same SMS without a key are two messages, each with a key of its own', async () => {
  const { account, client } = await opened();
  const request = { message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] };
  const first = await client.sendSms(request);
  const second = await client.sendSms(request);
  assert.notEqual(first.messages?.[0]?.msgid, second.messages?.[0]?.msgid);
  assert.equal(await messagesLeftOf(herald, account.id), 98);
});

test('a refused key is a HeraldError with status 403 and the interface\'s text', async () => {
  const client = new HeraldClient({ baseUrl: herald.url, apiKey: 'not-a-key' });
  const refusal = await client.sendEmail(email).then(() => undefined, (error: unknown) => error);
  assert.ok(refusal instanceof HeraldError);
  assert.deepStrictEqual([refusal.status, refusal.kind, refusal.message], [403, 'authentication', 'Invalid API Key ']);
});

test('a refused email is a HeraldError with status 400, the interface\'s text and the offending addresses', async () => {
  const { client } = await opened();
  const refusal = await client.sendEmail({ ...email, to: [{ email: 'ana@' }] }).then(() => undefined, (error: unknown) => error);
  assert.ok(refusal instanceof HeraldError);
  assert.deepStrictEqual([refusal.status, refusal.kind, refusal.message, refusal.offending], [400, 'validation', 'The recipient address has the wrong structure!', [{ email: 'ana@' }]]);
});

test('a send above the account\'s rate is a HeraldError with status 429, the interface\'s text and Retry-After', async () => {
  const account = await openClientAccount(herald, 1);
  const client = new HeraldClient({ baseUrl: herald.url, apiKey: account.apiKey, retries: 0 });
  const request = { message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] };
  await client.sendSms(request);
  const refusal = await client.sendSms(request).then(() => undefined, (error: unknown) => error);
  assert.ok(refusal instanceof HeraldError);
  assert.deepStrictEqual(
    [refusal.status, refusal.kind, refusal.message, refusal.retryAfterSeconds],
    [429, 'rate_limit', 'Ha excedido el límite de peticiones permitidas por segundo.', 1],
  );
});

test('a send above the account\'s rate is sent once Retry-After has passed', async () => {
  const account = await openClientAccount(herald, 1);
  const client = new HeraldClient({ baseUrl: herald.url, apiKey: account.apiKey });
  const request = { message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] };
  await client.sendSms(request);
  const started = Date.now();
  const second = await client.sendSms(request);
  assert.ok(Date.now() - started >= 900, `answered after ${Date.now() - started} ms`);
  assert.equal(second.messages_left, 98);
});

test('a WhatsApp session message without an open session is a HeraldError with status 400 and herald\'s text', async () => {
  const { client } = await opened();
  const refusal = await client.sendWhatsappMessage({ destination: '+5215512345678', message: 'Your order has shipped.' }).then(() => undefined, (error: unknown) => error);
  assert.ok(refusal instanceof HeraldError);
  assert.deepStrictEqual([refusal.status, refusal.kind, refusal.message], [400, 'application', 'No open session with this destination']);
});

test('an email batch with one invalid item is answered item by item and billed for the accepted ones', async () => {
  const { account, client } = await opened();
  const items = [email, { ...email, subject: '' }, { ...email, to: [{ email: 'bea@example.org' }] }];
  const batch = await client.sendEmailBatch(items, { idempotencyKey: 'batch-2001' });
  assert.deepStrictEqual(batch.data.map((item) => isBatchItemError(item) ? [item.status, item.message] : [item.message, item.to.map((to) => to.email)]), [
    ['Email queued for delivery', ['ana@example.org']],
    [400, 'Subject missing or empty!'],
    ['Email queued for delivery', ['bea@example.org']],
  ]);
  assert.equal(await messagesLeftOf(herald, account.id), 98);
});

test('an email batch replayed with the same idempotency key answers the same items and bills nothing', async () => {
  const { account, client } = await opened();
  const items = [email, { ...email, subject: '' }, { ...email, to: [{ email: 'bea@example.org' }] }];
  const first = await client.sendEmailBatch(items, { idempotencyKey: 'batch-2002' });
  const again = await client.sendEmailBatch(items, { idempotencyKey: 'batch-2002' });
  assert.deepStrictEqual(again, first);
  assert.equal(await messagesLeftOf(herald, account.id), 98);
});

test('an atomic SMS batch with one invalid item is a HeraldError with the item\'s index, nothing billed', async () => {
  const { account, client } = await opened();
  const items = [{ message: 'Hello', mobile_numbers: ['+5215512345678'] }, { message: 'Hello', mobile_numbers: ['12'] }];
  const refusal = await client.sendSmsBatch(items, { atomic: true }).then(() => undefined, (error: unknown) => error);
  assert.ok(refusal instanceof HeraldError);
  assert.deepStrictEqual([refusal.status, (refusal.body as { index?: number }).index], [400, 1]);
  assert.equal(await messagesLeftOf(herald, account.id), 100);
});

test('an SMS scheduled with a Date is cancelled and its message given back', async () => {
  const { account, client } = await opened();
  const sendAt = new Date(Date.now() + 3_600_000);
  const sent = await client.sendSms({ message: 'Your code is 1234', mobile_numbers: ['+5215512345678'], send_at: sendAt });
  const msgid = String(sent.messages?.[0]?.msgid);
  assert.deepStrictEqual([(await client.getMessage(msgid)).status, await messagesLeftOf(herald, account.id)], ['scheduled', 99]);
  const cancelled = await client.cancelScheduled(msgid);
  assert.deepStrictEqual(cancelled, { msgid, status: 'cancelled', refunded: { messages: 1, balance: 0 } });
  assert.deepStrictEqual([(await client.getMessage(msgid)).status, await messagesLeftOf(herald, account.id)], ['cancelled', 100]);
});

test('a scheduled SMS is moved to a new time with reschedule', async () => {
  const { client } = await opened();
  const sent = await client.sendSms({ message: 'Your code is 1234', mobile_numbers: ['+5215512345678'], send_at: new Date(Date.now() + 3_600_000) });
  const msgid = String(sent.messages?.[0]?.msgid);
  const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 7_200_000);
  const moved = await client.reschedule(msgid, later);
  assert.deepStrictEqual(moved, { msgid, status: 'scheduled', send_at: later.toISOString() });
  const read = await client.getMessage(msgid);
  assert.deepStrictEqual([read.status, read.send_at], ['scheduled', later.toISOString()]);
});

test('a webhook endpoint\'s test event verifies with that endpoint\'s secret, not the first endpoint\'s', async (t) => {
  const { client } = await opened();
  const first = await startWebhookReceiver(t);
  const { secret: firstSecret } = await client.setWebhookSettings({ url: first.url });
  const receiver = await startWebhookReceiver(t);
  const endpoint = await client.createWebhookEndpoint({ url: receiver.url, description: 'Analytics', event_types: ['sms.delivered'] });
  assert.deepStrictEqual([endpoint.url, endpoint.description, endpoint.event_types, endpoint.first], [receiver.url, 'Analytics', ['sms.delivered'], false]);
  assert.notEqual(endpoint.secret, firstSecret);
  receiver.secrets = [endpoint.secret];

  await client.sendWebhookTestEvent(endpoint.id, 'webhook.test');
  const post = await firstPost(receiver, (e) => e.payload.type === 'webhook.test', 'test event');
  assert.equal(verifyWebhook(post.body, post.headers, endpoint.secret).type, 'webhook.test');
  assert.throws(() => verifyWebhook(post.body, post.headers, firstSecret ?? ''), new WebhookVerificationError('no signature matches'));
  assert.deepStrictEqual([first.received.length, first.rejected.length], [0, 0], 'nothing posted to the first endpoint');
});

test('a webhook endpoint is listed, changed and deleted', async (t) => {
  const { account, client } = await opened();
  const receiver = await startWebhookReceiver(t);
  await client.setWebhookSettings({ url: receiver.url });
  const endpoint = await client.createWebhookEndpoint({ url: receiver.url, description: 'Analytics' });
  assert.deepStrictEqual((await client.listWebhookEndpoints()).data.map((e) => e.id), [account.id, endpoint.id]);
  const changed = await client.updateWebhookEndpoint(endpoint.id, { description: 'Billing', enabled: false });
  assert.deepStrictEqual([changed.description, changed.enabled, changed.disabled_reason], ['Billing', false, 'disabled by the account']);
  assert.equal(await client.deleteWebhookEndpoint(endpoint.id), undefined);
  assert.deepStrictEqual((await client.listWebhookEndpoints()).data.map((e) => e.id), [account.id]);
});
