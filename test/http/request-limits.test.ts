// The request limits (README "Limits") over HTTP: each answers 400 with its exact body,
// at the value its HERALD_MAX_* setting gives, and one request over each limit leaves the
// account and the template cache as they were.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { emailBody, get, openAccount, post, readAccount, smsBody, startService, type TestAccount } from '../support/service.ts';

const NUMBER = '+34612345678';

async function world(t: TestContext, env: Record<string, string> = {}): Promise<{ service: Service; account: TestAccount }> {
  const service = await startService(t, { env });
  const account = await openAccount(service, { messagesLeft: 1000 });
  return { service, account };
}

async function createTemplate(service: Service, account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'T', html: '<p>Hi</p>', ...body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().template_id;
}

test('an email to more recipients than HERALD_MAX_EMAIL_RECIPIENTS, to, cc and bcc together, answers 400 Too many recipients', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_EMAIL_RECIPIENTS: '3' });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({
    to: [{ email: 'a@example.org' }, { email: 'b@example.org' }], options: { cc: [{ email: 'c@example.org' }], bcc: [{ email: 'd@example.org' }] },
  }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Too many recipients', detail: 'at most 3 addresses in to, cc and bcc together' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 1000);
});

test('an email to exactly HERALD_MAX_EMAIL_RECIPIENTS recipients is accepted', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_EMAIL_RECIPIENTS: '3' });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'a@example.org' }, { email: 'b@example.org' }], options: { bcc: [{ email: 'd@example.org' }] } }));
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().to.length, 3);
});

test('an email with more attachments than HERALD_MAX_ATTACHMENTS answers 400 Too many attachments', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_ATTACHMENTS: '2' });
  const attachment = { filename: 'a.txt', path: 'data:text/plain;base64,aGk=' };
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ attachments: [attachment, attachment, attachment] }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Too many attachments', detail: 'at most 2 attachments' });
});

test('attachments decoding to more than HERALD_MAX_ATTACHMENT_BYTES together answer 400 Attachments are too large', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_ATTACHMENT_BYTES: '5' });
  // Three bytes each ("abc"): one fits, two do not.
  const attachment = { filename: 'a.txt', path: `data:text/plain;base64,${Buffer.from('abc').toString('base64')}` };
  const one = await post(service, '/v1/email', account.apiKey, emailBody({ attachments: [attachment] }));
  assert.equal(one.statusCode, 200, one.body);
  const two = await post(service, '/v1/email', account.apiKey, emailBody({ attachments: [attachment, attachment] }));
  assert.equal(two.statusCode, 400);
  assert.deepStrictEqual(two.json(), { message: 'Attachments are too large', detail: 'at most 5 bytes decoded, all attachments together' });
});

test('a subject longer than HERALD_MAX_SUBJECT_LENGTH answers 400 Subject is too long', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_SUBJECT_LENGTH: '10' });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ subject: 'x'.repeat(11) }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Subject is too long', detail: 'at most 10 characters' });
});

test('a subject whose filled placeholders could pass HERALD_MAX_SUBJECT_LENGTH answers 400 Subject is too long', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_SUBJECT_LENGTH: '10' });
  const templateId = await createTemplate(service, account, {});
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ subject: 'Hi {{who}}', template_id: templateId, variables: { who: 'Bartholomew' } }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Subject is too long', detail: 'at most 10 characters, counting every placeholder filled' });
});

test('a template html longer than HERALD_MAX_TEMPLATE_LENGTH answers 400 Template is too large', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_TEMPLATE_LENGTH: '8' });
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'T', html: '<p>1234</p>' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Template is too large', detail: 'at most 8 characters' });
});

test('a template with more tags than HERALD_MAX_TEMPLATE_PLACEHOLDERS answers 400 Template has too many placeholders', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_TEMPLATE_PLACEHOLDERS: '3' });
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'T', html: '{{#if a}}{{b}}{{! c }}{{/if}}' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Template has too many placeholders', detail: 'at most 3 {{…}} tags' });
});

test('a subject with more tags than HERALD_MAX_TEMPLATE_PLACEHOLDERS answers 400 Template has too many placeholders', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_TEMPLATE_PLACEHOLDERS: '3' });
  const templateId = await createTemplate(service, account, {});
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ subject: '{{a}}{{a}}{{a}}{{a}}', template_id: templateId }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Template has too many placeholders', detail: 'at most 3 {{…}} tags' });
});

test('blocks nested deeper than HERALD_MAX_TEMPLATE_DEPTH answer 400 Template blocks are nested too deeply', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_TEMPLATE_DEPTH: '2' });
  const res = await post(service, '/v1/email/templates', account.apiKey, { name: 'T', html: '{{#if a}}{{#if b}}{{#if c}}x{{/if}}{{/if}}{{/if}}' });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Template blocks are nested too deeply', detail: 'at most 2 levels of blocks' });
});

test('a template whose filled placeholders could pass HERALD_MAX_RENDERED_LENGTH answers 400 Rendered email is too large', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_RENDERED_LENGTH: '100' });
  const templateId = await createTemplate(service, account, { html: '<p>{{a}}{{a}}</p>' });
  const fits = await post(service, '/v1/email', account.apiKey, emailBody({ template_id: templateId, variables: { a: 'x'.repeat(46) } }));
  assert.equal(fits.statusCode, 200, fits.body);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ template_id: templateId, variables: { a: 'x'.repeat(47) } }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Rendered email is too large', detail: 'at most 100 characters, counting every placeholder filled' });
});

test('an SMS longer than HERALD_MAX_SMS_SEGMENTS messages answers 400 Message is too long', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_SMS_SEGMENTS: '2' });
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'a'.repeat(321) }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Message is too long', detail: 'at most 2 messages of 160 characters (320 characters after GSM conversion)' });
  assert.equal((await readAccount(service, account.id)).messagesLeft, 1000);
});

test('an SMS of exactly HERALD_MAX_SMS_SEGMENTS messages is sent', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_SMS_SEGMENTS: '2' });
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'a'.repeat(320) }));
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().total_messages_sent, 2);
});

test('the default SMS limit is 10 messages: 1,601 characters answer 400 Message is too long', async (t) => {
  const { service, account } = await world(t);
  const ok = await post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'a'.repeat(1600) }));
  assert.equal(ok.statusCode, 200, ok.body);
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ message: 'a'.repeat(1601) }));
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, {
    status: 400, body: { message: 'Message is too long', detail: 'at most 10 messages of 160 characters (1600 characters after GSM conversion)' },
  });
});

test('an SMS to more numbers than HERALD_MAX_SMS_NUMBERS answers 400 Too many mobile numbers', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_SMS_NUMBERS: '2' });
  const res = await post(service, '/v1/sms/send', account.apiKey, { message: 'hi', mobile_numbers: [NUMBER, NUMBER, NUMBER] });
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Too many mobile numbers', detail: 'at most 2 numbers' });
});

test('metadata larger than HERALD_MAX_METADATA_BYTES answers 400 with the size named', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_METADATA_BYTES: '20' });
  const res = await post(service, '/v1/sms/send', account.apiKey, smsBody({ metadata: { order: 'x'.repeat(20) } }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'metadata must be at most 20 bytes as JSON' });
});

test('metadata nested deeper than HERALD_MAX_METADATA_DEPTH answers 400 with the depth named', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_METADATA_DEPTH: '2' });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ metadata: { a: { b: { c: 1 } } } }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Invalid request, a field has the wrong type or value', detail: 'metadata must be nested at most 2 levels deep' });
});

test('metadata nested exactly HERALD_MAX_METADATA_DEPTH levels is accepted', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_METADATA_DEPTH: '2' });
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ metadata: { a: { b: 1 }, list: [1, 2] } }));
  assert.equal(res.statusCode, 200, res.body);
});

test('the OpenAPI document lists the limits in effect as x-herald-limits', async (t) => {
  const { service } = await world(t, { HERALD_MAX_SMS_SEGMENTS: '15' });
  const res = await service.http.inject({ method: 'GET', url: '/openapi.json' });
  const limits = res.json()['x-herald-limits'] as { setting: string }[];
  assert.equal(limits.length, 13);
  assert.deepStrictEqual(limits.find((row) => row.setting === 'HERALD_MAX_SMS_SEGMENTS'), {
    limit: 'SMS text, in messages of 160 characters after GSM conversion', value: 15, unit: 'messages',
    setting: 'HERALD_MAX_SMS_SEGMENTS', appliesTo: 'POST /v1/sms/send', status: 400, message: 'Message is too long',
  });
});

// The inputs of issue 11, with the default limits: each is answered in well under a second.
// Bodies are serialised before the clock starts: the time is the service's.

/**
 * The answer, and the fastest of up to three tries: a machine shared with other suites may
 * stall any one request (decoding and parsing a body of megabytes is most of the time here).
 */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  let best: { value: T; ms: number } | undefined;
  for (let attempt = 0; attempt < 3 && (best === undefined || best.ms >= 1000); attempt++) {
    const start = performance.now();
    const value = await work();
    const ms = performance.now() - start;
    if (best === undefined || ms < best.ms) best = { value, ms };
  }
  return best as { value: T; ms: number };
}

test('a subject of 500,000 placeholders is refused as too long within a second', async (t) => {
  const { service, account } = await world(t);
  const templateId = await createTemplate(service, account, {});
  const body = JSON.stringify(emailBody({ subject: '{{a}}'.repeat(500_000), template_id: templateId }));
  const { value: res, ms } = await timed(() => post(service, '/v1/email', account.apiKey, body));
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Subject is too long', detail: 'at most 2000 characters' } });
  assert.ok(ms < 1000, `${ms} ms`);
});

test('a template html of 500,000 placeholders is refused within a second, by its length or, under a larger length limit, its tags', async (t) => {
  const { service, account } = await world(t, { HERALD_MAX_TEMPLATE_LENGTH: String(4 * 1024 * 1024) });
  const body = JSON.stringify({ name: 'T', html: '{{a}}'.repeat(500_000) });
  const { value: res, ms } = await timed(() => post(service, '/v1/email/templates', account.apiKey, body));
  assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Template has too many placeholders', detail: 'at most 5000 {{…}} tags' } });
  assert.ok(ms < 1000, `${ms} ms`);
});

for (const depth of [3500, 20_000]) {
  test(`a template of ${depth.toLocaleString('en-US')} nested if blocks is refused within a second`, async (t) => {
    const { service, account } = await world(t);
    const html = '{{#if a}}'.repeat(depth) + 'x' + '{{/if}}'.repeat(depth);
    const body = JSON.stringify({ name: 'T', html });
    const { value: res, ms } = await timed(() => post(service, '/v1/email/templates', account.apiKey, body));
    assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Template blocks are nested too deeply', detail: 'at most 50 levels of blocks' } });
    assert.ok(ms < 1000, `${ms} ms`);
  });

  test(`a subject of ${depth.toLocaleString('en-US')} nested if blocks is refused within a second, also under a larger subject limit`, async (t) => {
    const { service, account } = await world(t, { HERALD_MAX_SUBJECT_LENGTH: '1000000' });
    const templateId = await createTemplate(service, account, {});
    const subject = '{{#if a}}'.repeat(depth) + 'x' + '{{/if}}'.repeat(depth);
    const body = JSON.stringify(emailBody({ subject, template_id: templateId }));
    const { value: res, ms } = await timed(() => post(service, '/v1/email', account.apiKey, body));
    assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Template blocks are nested too deeply', detail: 'at most 50 levels of blocks' } });
    assert.ok(ms < 1000, `${ms} ms`);
  });
}

test('an SMS of 9,000,000 characters is refused from its declared length, within a second', async (t) => {
  const { service, account } = await world(t);
  const body = JSON.stringify(smsBody({ message: 'a'.repeat(9_000_000) }));
  const { value: res, ms } = await timed(() => post(service, '/v1/sms/send', account.apiKey, body));
  assert.equal(res.statusCode, 413, res.body);
  assert.deepStrictEqual(res.json(), { message: 'Request body is too large' });
  assert.ok(ms < 1000, `${ms} ms`);
});

test('an SMS of 1,000,000 characters, within the body limit, is refused by its length within a second', async (t) => {
  const { service, account } = await world(t);
  const body = JSON.stringify(smsBody({ message: 'a'.repeat(1_000_000) }));
  const { value: res, ms } = await timed(() => post(service, '/v1/sms/send', account.apiKey, body));
  assert.equal(res.statusCode, 400, res.body);
  assert.deepStrictEqual(res.json(), { message: 'Message is too long', detail: 'at most 10 messages of 160 characters (1600 characters after GSM conversion)' });
  assert.ok(ms < 1000, `${ms} ms`);
});

test('40 template sends with distinct 5 MB subjects are refused, in well under a second each (the median), and leave the template cache as it was', async (t) => {
  const { service, account } = await world(t);
  const templateId = await createTemplate(service, account, { html: '<p>{{a}}</p>' });
  const warm = await post(service, '/v1/email', account.apiKey, emailBody({ subject: 'Hi {{a}}', template_id: templateId, variables: { a: '1' } }));
  assert.equal(warm.statusCode, 200, warm.body);
  const before = service.deps.templates.cacheUsage();
  const times: number[] = [];
  for (let i = 0; i < 40; i++) {
    const body = JSON.stringify(emailBody({ subject: `${i} {{a}}`.padEnd(5 * 1024 * 1024, ' {{a}}'), template_id: templateId }));
    const { value: res, ms } = await timed(() => post(service, '/v1/email', account.apiKey, body));
    assert.deepStrictEqual({ status: res.statusCode, body: res.json() }, { status: 400, body: { message: 'Subject is too long', detail: 'at most 2000 characters' } });
    times.push(ms);
  }
  // The median: a machine shared with other work may stall any one request.
  const median = times.sort((a, b) => a - b)[20] ?? 0;
  assert.ok(median < 1000, `median ${median} ms`);
  assert.deepStrictEqual(service.deps.templates.cacheUsage(), before);
});

test('templates refused for their syntax or depth are not kept in the template cache', async (t) => {
  const { service, account } = await world(t);
  const before = service.deps.templates.cacheUsage();
  for (let i = 0; i < 20; i++) {
    const broken = await post(service, '/v1/email/templates', account.apiKey, { name: 'T', html: `${i} {{a` });
    assert.equal(broken.statusCode, 400);
    const deep = await post(service, '/v1/email/templates', account.apiKey, { name: 'T', html: `${i}${'{{#if a}}'.repeat(60)}${'{{/if}}'.repeat(60)}` });
    assert.equal(deep.statusCode, 400);
  }
  assert.deepStrictEqual(service.deps.templates.cacheUsage(), before);
});

test('a template at the limits, 5,000 tags and 50 levels deep, is saved and rendered within a second', async (t) => {
  const { service, account } = await world(t);
  const nested = '{{#if a}}'.repeat(50) + '{{v}}' + '{{/if}}'.repeat(50);
  const html = nested + '<p>{{v}}</p>'.repeat(5000 - 101);
  const { value: saved, ms: saveMs } = await timed(() => post(service, '/v1/email/templates', account.apiKey, { name: 'T', html }));
  assert.equal(saved.statusCode, 201, saved.body);
  const { value: sent, ms: sendMs } = await timed(() => post(service, '/v1/email', account.apiKey, emailBody({ template_id: saved.json().template_id, variables: { a: '1', v: 'x' }, tracking: { opens: false, clicks: false } })));
  assert.equal(sent.statusCode, 200, sent.body);
  assert.ok(saveMs < 1000 && sendMs < 1000, `${saveMs} ms, ${sendMs} ms`);
  await service.worker.drain();
  const raw = await get(service, `/v1/messages/${sent.json().to[0].msgid}/raw`, account.apiKey);
  assert.equal(raw.statusCode, 200);
});
