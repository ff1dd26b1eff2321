import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { composeEmail, prepareEmail, unsubscribeUrl, verpAddress } from '../../../src/channels/email/compose.ts';
import { renderMime } from '../../../src/channels/email/mime.ts';
import { ACCOUNT, FIXED_TIME, MSGID, PAYLOAD, SETTINGS, VERP_FROM, dkimFixture, header, headerFields, outbound } from './fixtures.ts';

const signal = new AbortController().signal;

test('the envelope sender is the VERP address of the msgid and the envelope recipient is the message recipient alone', async () => {
  const mail = await composeEmail(outbound({ recipient: 'carl@example.org' }), [], SETTINGS);
  assert.deepStrictEqual(mail.envelope, { from: VERP_FROM, to: ['carl@example.org'] });
});

test('the VERP address is built from the msgid and its tag under the installation secret', () => {
  assert.equal(verpAddress(MSGID, SETTINGS), `b+${MSGID}-92727668eafaa5e7@bounces.example.com`);
});

test('the unsubscribe URL carries a signed token naming the account and the msgid', async () => {
  const url = await unsubscribeUrl(SETTINGS, { msgid: 'abc', accountId: ACCOUNT }, FIXED_TIME);
  const token = url.slice('https://herald.example.com/u/'.length);
  assert.ok(url.startsWith('https://herald.example.com/u/'));
  assert.deepStrictEqual(await SETTINGS.tokens.verify(token, 'unsubscribe', FIXED_TIME), { kind: 'unsubscribe', accountId: ACCOUNT, msgid: 'abc' });
});

test('the rendered message carries the msgid in Message-ID, the clock in Date and one-click unsubscribe headers', async () => {
  const raw = await renderMime(await composeEmail(outbound(), [], SETTINGS));
  assert.equal(header(raw, 'Message-ID'), `<${MSGID}@herald.example.com>`);
  assert.equal(header(raw, 'Date'), 'Mon, 01 Jul 2024 12:00:00 +0000');
  assert.equal(header(raw, 'List-Unsubscribe'), `<${await unsubscribeUrl(SETTINGS, { msgid: MSGID, accountId: ACCOUNT }, FIXED_TIME)}>`);
  assert.equal(header(raw, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
});

test('every copy shows the same To and Cc headers and none shows Bcc or the envelope recipient', async () => {
  const raw = await renderMime(await composeEmail(outbound({ recipient: 'bea@example.org' }), [], SETTINGS));
  assert.equal(header(raw, 'To'), 'ana@example.org');
  assert.equal(header(raw, 'Cc'), 'carl@example.org');
  assert.equal(headerFields(raw).filter((f) => /^bcc:/i.test(f)).length, 0);
  assert.ok(!raw.toString().includes('bea@example.org'));
});

test('composing the same message at the same time twice gives the same bytes', async () => {
  const first = await renderMime(await composeEmail(outbound(), [], SETTINGS));
  const second = await renderMime(await composeEmail(outbound(), [], SETTINGS));
  assert.equal(first.toString(), second.toString());
});

test('an HTML-only message gets a text alternative made from the HTML', async () => {
  const mail = await composeEmail(outbound({ payload: { ...outbound().payload, text: null, html: '<p>Hi <b>there</b></p>' } }), [], SETTINGS);
  assert.equal(mail.text, 'Hi there');
});

test('the message is signed with the sender domain key the lookup returns', async () => {
  const key = dkimFixture();
  const mail = await composeEmail(outbound(), [], { ...SETTINGS, dkim: key.lookup });
  assert.deepStrictEqual(key.asked, [[ACCOUNT, 'example.com']]);
  const raw = await renderMime(mail);
  const signature = header(raw, 'DKIM-Signature') ?? '';
  assert.match(signature, /d=example\.com; q=dns\/txt; s=herald202407;/);
  assert.match(signature.replace(/\s/g, ''), /h=from:reply-to:subject:date:message-id:to:cc:mime-version:content-type:list-unsubscribe:list-unsubscribe-post;/);
});

test('a sender domain without a key gets its mail unsigned', async () => {
  const mail = await composeEmail(outbound(), [], SETTINGS);
  assert.equal(mail.dkim, undefined);
  assert.equal(header(await renderMime(mail), 'DKIM-Signature'), undefined);
});

test('a DKIM key that is not RSA is refused instead of sending the message unsigned', async () => {
  const { privateKey } = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const dkim = async () => ({ selector: 's1', privateKey });
  await assert.rejects(composeEmail(outbound(), [], { ...SETTINGS, dkim }), { message: 'the DKIM key of example.com (selector s1) is ed25519, not RSA' });
});

test('resolved attachments are attached with their file names and content types', async () => {
  const content = Buffer.from('%PDF-1.7');
  const raw = (await renderMime(await composeEmail(outbound(), [{ filename: 'july.pdf', contentType: 'application/pdf', content }], SETTINGS))).toString();
  assert.match(raw, /Content-Type: application\/pdf; name=july\.pdf\r\n/);
  assert.match(raw, /Content-Disposition: attachment; filename=july\.pdf\r\n/);
  assert.ok(raw.includes(content.toString('base64')));
});

test('an attachment that cannot be fetched for good fails the message without it leaving the house', async () => {
  const resolveAttachments = async () => ({ ok: false as const, reason: 'attachment a.pdf: HTTP 404 from https://files.example.com/a.pdf', permanent: true });
  const prepared = await prepareEmail(outbound(), signal, { ...SETTINGS, resolveAttachments }, 'relay.example.net:587');
  assert.deepStrictEqual(prepared, {
    ok: false,
    outcome: { kind: 'failed', peer: 'relay.example.net:587', response: 'attachment a.pdf: HTTP 404 from https://files.example.com/a.pdf', leftTheHouse: false },
  });
});

test('an attachment fetch that may succeed later defers the message', async () => {
  const resolveAttachments = async () => ({ ok: false as const, reason: 'attachment a.pdf: timed out after 30000 ms', permanent: false });
  const prepared = await prepareEmail(outbound(), signal, { ...SETTINGS, resolveAttachments }, 'capture');
  assert.deepStrictEqual(prepared, { ok: false, outcome: { kind: 'deferred', peer: 'capture', response: 'attachment a.pdf: timed out after 30000 ms' } });
});

test('the Date header follows the clock of the settings', async () => {
  const mail = await composeEmail(outbound(), [], { ...SETTINGS, clock: () => FIXED_TIME + 86_400_000 });
  assert.equal(header(await renderMime(mail), 'Date'), 'Tue, 02 Jul 2024 12:00:00 +0000');
});

// ---- Tracking (the rewriting itself is tested in tracking.test.ts) ----

const LINKED = '<html><body><p>Read <a href="https://example.com/july">July</a></p></body></html>';
const tracked = (tracking: { opens: boolean; clicks: boolean }, extra: Partial<typeof PAYLOAD> = {}) =>
  outbound({ payload: { ...PAYLOAD, html: LINKED, text: null, tracking, ...extra } });

test('a message tracking opens and clicks gets the pixel and a rewritten link in its HTML', async () => {
  const mail = await composeEmail(tracked({ opens: true, clicks: true }), [], SETTINGS);
  assert.match(String(mail.html), /^<html><body><p>Read <a href="https:\/\/herald\.example\.com\/t\/c\/[\w-]+\.[\w-]+\.[\w-]+">July<\/a><\/p><img src="https:\/\/herald\.example\.com\/t\/o\/[\w-]+\.[\w-]+\.[\w-]+" [^>]*><\/body><\/html>$/);
});

test('the text alternative of a tracked message keeps the original link', async () => {
  const mail = await composeEmail(tracked({ opens: true, clicks: true }), [], SETTINGS);
  assert.equal(mail.text, 'Read July [https://example.com/july]');
});

test('a message tracking nothing keeps its HTML as written', async () => {
  const mail = await composeEmail(tracked({ opens: false, clicks: false }), [], SETTINGS);
  assert.equal(mail.html, LINKED);
});

test('a certified message is never tracked, whatever its payload says', async () => {
  const mail = await composeEmail(tracked({ opens: true, clicks: true }, { certified: true }), [], SETTINGS);
  assert.equal(mail.html, LINKED);
});

test('a tracked message composed twice at the same time gives the same bytes', async () => {
  const first = await renderMime(await composeEmail(tracked({ opens: true, clicks: true }), [], SETTINGS));
  const second = await renderMime(await composeEmail(tracked({ opens: true, clicks: true }), [], SETTINGS));
  assert.equal(first.toString(), second.toString());
});
