// Prepaid metering under load: concurrent sends never overdraw, refusals are whole,
// and the ledger always sums to what the account holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listLedger } from '../../src/store/ledger.ts';
import type { Service } from '../../src/service.ts';
import { addWhatsappTemplate, emailBody, get, openAccount, post, readAccount, smsBody, startService } from '../support/service.ts';

async function ledgerSums(service: Service, accountId: string): Promise<{ messages: number; balance: number; entries: number }> {
  const entries = await listLedger(service.deps.db, accountId);
  return {
    messages: entries.reduce((sum, e) => sum + e.messagesDelta, 0),
    balance: entries.reduce((sum, e) => sum + e.balanceDelta, 0),
    entries: entries.length,
  };
}

test('200 simultaneous one-recipient emails on 50 messages left: exactly 50 get 200 and 150 get 401', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 50, rateLimitPerSecond: 1000 });
  const responses = await Promise.all(
    Array.from({ length: 200 }, (_, i) => post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: `user${i}@example.org` }] }))),
  );
  const ok = responses.filter((r) => r.statusCode === 200);
  const refused = responses.filter((r) => r.statusCode === 401);
  assert.equal(ok.length, 50);
  assert.equal(refused.length, 150);
  for (const r of refused) assert.deepStrictEqual(r.json(), { message: 'No messages left, please buy more messages' });
  const msgids = new Set(ok.map((r) => r.json().to[0].msgid as string));
  assert.equal(msgids.size, 50);
});

test('after 200 simultaneous emails on 50 messages the account holds 0 and the ledger sums to 0', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 50, rateLimitPerSecond: 1000 });
  await Promise.all(Array.from({ length: 200 }, () => post(service, '/v1/email', account.apiKey, emailBody())));
  assert.equal((await readAccount(service, account.id)).messagesLeft, 0);
  const entries = await listLedger(service.deps.db, account.id);
  assert.equal(entries.filter((e) => e.reason === 'account.open').length, 1);
  assert.equal(entries.find((e) => e.reason === 'account.open')?.messagesDelta, 50);
  const sends = entries.filter((e) => e.reason === 'email.send');
  assert.equal(sends.length, 50);
  assert.ok(sends.every((e) => e.messagesDelta === -1));
  assert.deepStrictEqual(await ledgerSums(service, account.id), { messages: 0, balance: 0, entries: 51 });
  const stored = await service.store.db.selectFrom('messages').select('id').where('account_id', '=', account.id).execute();
  assert.equal(stored.length, 50);
});

test('simultaneous SMS sends of 2 messages each on 7 left: 3 are accepted, 1 message stays', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 7, rateLimitPerSecond: 1000 });
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'x'.repeat(200) }))),
  );
  assert.equal(responses.filter((r) => r.statusCode === 200).length, 3);
  assert.equal(responses.filter((r) => r.statusCode === 401).length, 17);
  const left = responses.filter((r) => r.statusCode === 200).map((r) => r.json().messages_left as number).sort((a, b) => a - b);
  assert.deepStrictEqual(left, [1, 3, 5]);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 1);
  assert.deepStrictEqual(await ledgerSums(service, account.id), { messages: 1, balance: 0, entries: 4 });
});

test('simultaneous WhatsApp sends never take the balance below zero, and the ledger follows it', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { balance: 10_000, whatsappPrice: 500, rateLimitPerSecond: 1000 });
  const template = await addWhatsappTemplate(service, account.id);
  const responses = await Promise.all(Array.from({ length: 40 }, () =>
    post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, { destination: '5215512345678', templateId: template.id, params: ['Ana', '1'] })));
  assert.equal(responses.filter((r) => r.statusCode === 200).length, 20);
  const refused = responses.filter((r) => r.statusCode === 401);
  assert.equal(refused.length, 20);
  for (const r of refused) assert.deepStrictEqual(r.json(), { message: 'Insufficient balance' });
  const balances = responses.filter((r) => r.statusCode === 200).map((r) => r.json().current_balance as number).sort((a, b) => a - b);
  assert.deepStrictEqual(balances, Array.from({ length: 20 }, (_, i) => Number((i * 0.05).toFixed(2))));
  assert.equal((await readAccount(service, account.id)).balance, 0);
  assert.deepStrictEqual(await ledgerSums(service, account.id), { messages: 1000, balance: 0, entries: 21 });
});

test('an email to 3 recipients costs 3 messages, one ledger entry of -3', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 10 });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({
    to: [{ email: 'ana@example.org' }], options: { cc: [{ email: 'carl@example.org' }], bcc: [{ email: 'bea@example.org' }] },
  }));
  assert.equal(res.statusCode, 200);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 7);
  const entries = await listLedger(service.deps.db, account.id);
  assert.deepStrictEqual(entries.filter((e) => e.reason === 'email.send').map((e) => e.messagesDelta), [-3]);
});

test('refused sends write nothing to the ledger', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 2 });
  await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'a@example.org' }, { email: 'b@example.org' }, { email: 'c@example.org' }] }));
  await post(service, '/v1/email', account.apiKey, emailBody({ subject: '' }));
  await post(service, '/v1/email', account.apiKey, emailBody({ from: { email: 'x@other.com', name: 'x' } }));
  assert.deepStrictEqual(await ledgerSums(service, account.id), { messages: 2, balance: 0, entries: 1 });
});

test('an email whose attachment cannot be fetched fails at delivery and its message is given back', async (t) => {
  const server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end('gone');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 5 });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ attachments: [{ filename: 'a.pdf', path: `http://127.0.0.1:${port}/a.pdf` }] }));
  assert.equal(res.statusCode, 200);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 4);
  await service.worker.drain();
  const view = await get(service, `/v1/messages/${res.json().to[0].msgid}`, account.apiKey);
  assert.equal(view.json().status, 'failed');
  assert.equal((await readAccount(service, account.id)).messagesLeft, 5);
  assert.deepStrictEqual(await ledgerSums(service, account.id), { messages: 5, balance: 0, entries: 3 });
});

test('an email to 1,201 recipients is accepted whole, costs 1,201 messages and lists every recipient', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service, { messagesLeft: 2000 });
  const to = Array.from({ length: 1201 }, (_, i) => ({ email: `user${i}@example.org` }));
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ to }));
  assert.equal(res.statusCode, 200);
  const listed = res.json().to as { email: string; msgid: string }[];
  assert.deepStrictEqual(listed.map((r) => r.email), to.map((r) => r.email));
  assert.equal(new Set(listed.map((r) => r.msgid)).size, 1201);
  assert.equal((await readAccount(service, account.id)).messagesLeft, 799);
  assert.deepStrictEqual(await ledgerSums(service, account.id), { messages: 799, balance: 0, entries: 2 });
});
