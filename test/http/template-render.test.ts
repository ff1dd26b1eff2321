// POST /v1/email/templates/render: what POST /v1/email would send, rendered by herald's
// own template compiler, for a stored template or an edit not yet saved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { simpleParser } from 'mailparser';
import { emailBody, get, openAccount, post, startService } from '../support/service.ts';

const answer = (res: LightMyRequestResponse) => ({ status: res.statusCode, body: res.json() });

test('an HTML source renders with its variables escaped, the subject filled in, and the text generated from the HTML', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email/templates/render', account.apiKey, {
    subject: 'Hi {{name}}', html: '<h1>Hello {{name}}</h1><p>Your code: {{code}}</p>', variables: { name: 'Ana <3', code: '42' },
  });
  assert.deepStrictEqual(answer(res), {
    status: 200,
    body: { subject: 'Hi Ana <3', html: '<h1>Hello Ana &lt;3</h1><p>Your code: 42</p>', text: 'HELLO ANA <3\n\nYour code: 42' },
  });
});

test('a stored template renders its own HTML, text and subject; html given in the request replaces its HTML only', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const saved = await post(service, '/v1/email/templates', account.apiKey, { name: 'Welcome', subject: 'Welcome, {{name}}', html: '<p>Hello {{name}}</p>', text: 'Hello {{name}}, in text' });
  const id = saved.json().template_id as string;
  assert.deepStrictEqual(answer(await post(service, '/v1/email/templates/render', account.apiKey, { template_id: id, variables: { name: 'Ana' } })), {
    status: 200, body: { subject: 'Welcome, Ana', html: '<p>Hello Ana</p>', text: 'Hello Ana, in text' },
  });
  assert.deepStrictEqual(answer(await post(service, '/v1/email/templates/render', account.apiKey, { template_id: id, html: '<p>Bye {{name}}</p>', variables: { name: 'Ana' } })), {
    status: 200, body: { subject: 'Welcome, Ana', html: '<p>Bye Ana</p>', text: 'Hello Ana, in text' },
  });
});

test('the render is what a send with the template puts on the wire', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = (await post(service, '/v1/email/templates', account.apiKey, { name: 'Welcome', html: '<p>Hello {{name}}</p>' })).json().template_id as string;
  const rendered = (await post(service, '/v1/email/templates/render', account.apiKey, { template_id: id, subject: 'Hello', variables: { name: 'Ana' } })).json();
  // Untracked, so the HTML part goes out exactly as the template rendered it (no pixel).
  const sent = await post(service, '/v1/email', account.apiKey, emailBody({ body: undefined, subject: 'Hello', template_id: id, variables: { name: 'Ana' }, tracking: { opens: false, clicks: false } }));
  assert.equal(sent.statusCode, 200, sent.body);
  await service.worker.drain();
  const wire = await simpleParser((await get(service, `/v1/messages/${sent.json().to[0].msgid}/raw`, account.apiKey)).body);
  assert.deepStrictEqual({ subject: wire.subject, html: wire.html, text: wire.text?.replaceAll('\r\n', '\n').trimEnd() }, rendered);
});

test('a malformed placeholder answers Incorrect variable syntax', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const cases: [Record<string, string>, string][] = [
    [{ html: '<p>Hello {{name}</p>' }, 'html: line 1, column 10: {{name}</p> is never closed with }}'],
    [{ html: '<p>ok</p>', text: 'Hello {{#if}}' }, 'text: line 1, column 7: {{#if}} is not a placeholder herald knows'],
    [{ html: '<p>ok</p>', subject: 'Hi {{name' }, 'subject: line 1, column 4: {{name is never closed with }}'],
  ];
  for (const [body, detail] of cases) {
    assert.deepStrictEqual(answer(await post(service, '/v1/email/templates/render', account.apiKey, body)), { status: 400, body: { message: 'Incorrect variable syntax', detail } }, JSON.stringify(body));
  }
});

test('a render needs HTML or a template, variables as strings, and no other field', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const invalid = 'Invalid request, a field has the wrong type or value';
  const cases: [unknown, string][] = [
    [{ subject: 'x' }, 'html: give the HTML to render, or a template_id'],
    [{ html: '<p>x</p>', variables: { n: 1 } }, 'variables: must be an object of strings'],
    [{ html: '<p>x</p>', from: 'a@b.c' }, 'from: unknown field'],
  ];
  for (const [body, detail] of cases) {
    assert.deepStrictEqual(answer(await post(service, '/v1/email/templates/render', account.apiKey, body)), { status: 400, body: { message: invalid, detail } }, detail);
  }
});

test('another account\'s template is not found', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  const id = (await post(service, '/v1/email/templates', other.apiKey, { name: 'Secret', html: '<p>secret</p>' })).json().template_id as string;
  assert.deepStrictEqual(answer(await post(service, '/v1/email/templates/render', account.apiKey, { template_id: id })), { status: 404, body: { message: 'Not found' } });
});
