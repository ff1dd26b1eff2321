// GET /v1/messages/:msgid/preview: the email as its recipient sees it, for the web
// application's sandboxed frame, under a CSP that runs nothing and loads nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emailBody, get, issueKey, openAccount, post, smsBody, startService } from '../support/service.ts';

const PREVIEW_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'self'; sandbox";

test('an email\'s preview is the HTML that was sent, under a CSP that runs and loads nothing', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const html = '<p>Hi <b>Ana</b><img src="https://tracker.example/p.gif"><script>alert(1)</script></p>';
  const msgid = (await post(service, '/v1/email', account.apiKey, emailBody({ body: html }))).json().to[0].msgid as string;
  const res = await get(service, `/v1/messages/${msgid}/preview`, account.apiKey);
  assert.deepStrictEqual(
    {
      status: res.statusCode, type: res.headers['content-type'], csp: res.headers['content-security-policy'], nosniff: res.headers['x-content-type-options'],
      frame: res.headers['x-frame-options'], cache: res.headers['cache-control'], referrer: res.headers['referrer-policy'], body: res.body,
    },
    {
      status: 200, type: 'text/html; charset=utf-8', csp: PREVIEW_CSP, nosniff: 'nosniff', frame: 'SAMEORIGIN', cache: 'private, no-store',
      referrer: 'no-referrer', body: html,
    },
  );
});

test('a text-only email\'s preview shows its text, escaped, in a <pre>', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const msgid = (await post(service, '/v1/email', account.apiKey, emailBody({ body: 'Hello Ana & "Bo", 2 > 1' }))).json().to[0].msgid as string;
  const res = await get(service, `/v1/messages/${msgid}/preview`, account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, '<!doctype html><meta charset="utf-8"><pre style="white-space: pre-wrap; font: 14px/1.5 monospace">Hello Ana &#38; &#34;Bo&#34;, 2 &#62; 1</pre>');
});

test('an SMS has no email preview', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const msgid = (await post(service, '/v1/sms/send', account.apiKey, smsBody())).json().messages[0].msgid as string;
  const res = await get(service, `/v1/messages/${msgid}/preview`, account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
});

test('another account\'s message has no preview: 404', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  const msgid = (await post(service, '/v1/email', other.apiKey, emailBody())).json().to[0].msgid as string;
  const res = await get(service, `/v1/messages/${msgid}/preview`, account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
});

test('a key without the email scope may not preview an email', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const smsKey = await issueKey(service, account.id, ['sms']);
  const msgid = (await post(service, '/v1/email', account.apiKey, emailBody())).json().to[0].msgid as string;
  const res = await get(service, `/v1/messages/${msgid}/preview`, smsKey.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'API key not authorized.' }]);
});
