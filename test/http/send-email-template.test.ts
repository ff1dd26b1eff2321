import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import type { Service } from '../../src/service.ts';
import { emailBody, get, openAccount, post, startService, type TestAccount } from '../support/service.ts';

// Template mode of POST /v1/email: the stored template is rendered with the request's
// variables and the result is read back from the capture transport as MIME.

interface MimePart {
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/** Headers (unfolded, names lower-cased) and the raw body of one MIME entity. */
function splitEntity(entity: string): MimePart {
  const end = entity.indexOf('\r\n\r\n');
  const head = end === -1 ? entity : entity.slice(0, end);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: end === -1 ? '' : entity.slice(end + 4) };
}

function decode(part: MimePart): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const encoded = part.body.replace(/=\r\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < encoded.length; i++) {
      const hex = encoded.slice(i + 1, i + 3);
      if (encoded[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
        bytes.push(Number.parseInt(hex, 16));
        i += 2;
      } else {
        bytes.push(encoded.charCodeAt(i));
      }
    }
    return Buffer.from(bytes).toString('utf8');
  }
  return part.body;
}

/** The leaf parts of a message, depth first, with their bodies decoded. */
function leafParts(entity: MimePart): { contentType: string; text: string }[] {
  const contentType = entity.headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!/^multipart\//i.test(contentType) || boundary === undefined) return [{ contentType, text: decode(entity) }];
  // Each delimiter is CRLF "--boundary"; the CRLF before it belongs to the delimiter.
  const chunks = `\r\n${entity.body}`.split(`\r\n--${boundary}`).slice(1);
  const parts: { contentType: string; text: string }[] = [];
  for (const chunk of chunks) {
    if (chunk.startsWith('--')) break;
    parts.push(...leafParts(splitEntity(chunk.slice(chunk.indexOf('\r\n') + 2))));
  }
  return parts;
}

interface Delivered {
  readonly subject: string | undefined;
  readonly html: string | undefined;
  readonly text: string | undefined;
}

/** Sends, lets the worker deliver, and reads the captured MIME back. */
async function sendAndRead(service: Service, account: TestAccount, overrides: Record<string, unknown>): Promise<Delivered> {
  // Untracked, so the HTML part is read back exactly as the template rendered it (no pixel).
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ tracking: { opens: false, clicks: false }, ...overrides }));
  assert.equal(res.statusCode, 200, res.body);
  const msgid: string = res.json().to[0].msgid;
  await service.worker.drain();
  const raw = await get(service, `/v1/messages/${msgid}/raw`, account.apiKey);
  assert.equal(raw.statusCode, 200);
  const message = splitEntity(raw.body);
  const leaves = leafParts(message);
  return {
    subject: message.headers.get('subject'),
    html: leaves.find((p) => p.contentType.startsWith('text/html'))?.text,
    text: leaves.find((p) => p.contentType.startsWith('text/plain'))?.text,
  };
}

async function createTemplate(service: Service, account: TestAccount, template: Record<string, unknown>): Promise<string> {
  const res = await post(service, '/v1/email/templates', account.apiKey, template);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().template_id;
}

const greeting = { name: 'Greeting', html: '<p>Hello {{name}}</p>', text: 'Hello {{name}}, in plain text' };

test('a template send renders the HTML part with the variables HTML-escaped', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  const delivered = await sendAndRead(service, account, { body: undefined, template_id: id, variables: { name: '<b>&</b>' } });
  assert.equal(delivered.html, '<p>Hello &lt;b&gt;&amp;&lt;/b&gt;</p>');
});

test('non-ASCII values and long lines survive the transfer encoding of the HTML part', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, { name: 'Long', html: `<p>{{name}} ${'x'.repeat(120)} 100% =done</p>` });
  const delivered = await sendAndRead(service, account, { body: undefined, template_id: id, variables: { name: 'Ána Ñuñez €' } });
  assert.equal(delivered.html, `<p>Ána Ñuñez € ${'x'.repeat(120)} 100% =done</p>`);
});

test('a template send fills the variables of the request subject', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  const delivered = await sendAndRead(service, account, { body: undefined, subject: 'Hello {{name}}', template_id: id, variables: { name: 'Ana' } });
  assert.equal(delivered.subject, 'Hello Ana');
});

test('a template send takes its text part from the template text, values inserted as they are', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  const delivered = await sendAndRead(service, account, { body: undefined, template_id: id, variables: { name: 'Ana & Bo' } });
  assert.equal(delivered.text, 'Hello Ana & Bo, in plain text');
});

test('a variable the request does not give renders as empty text', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  const delivered = await sendAndRead(service, account, { body: undefined, template_id: id });
  assert.equal(delivered.html, '<p>Hello </p>');
});

test('when both body and template_id are given the template is sent', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  const delivered = await sendAndRead(service, account, { body: '<p>direct body</p>', template_id: id, variables: { name: 'Ana' } });
  assert.equal(delivered.html, '<p>Hello Ana</p>');
  assert.equal(delivered.text, 'Hello Ana, in plain text');
});

test('an unknown template id is refused with Could not find template', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ body: undefined, template_id: '01900000-0000-7000-8000-000000000000' }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
});

test('another account\'s template id is refused with Could not find template', async (t) => {
  const service = await startService(t);
  const owner = await openAccount(service);
  const other = await openAccount(service, { name: 'other' });
  const id = await createTemplate(service, owner, greeting);
  const res = await post(service, '/v1/email', other.apiKey, emailBody({ body: undefined, template_id: id }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
});

test('a deleted template can no longer be sent', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  const deleted = await service.http.inject({ method: 'DELETE', url: `/v1/email/templates/${id}`, headers: { authorization: `Bearer ${account.apiKey}` } });
  assert.equal(deleted.statusCode, 204);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ body: undefined, template_id: id }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Could not find template' });
});

for (const [what, variables] of [
  ['an array', ['Ana']],
  ['a string', 'name=Ana'],
  ['an object with a number value', { name: 'Ana', age: 7 }],
  ['an object with a nested object', { name: { first: 'Ana' } }],
] as const) {
  test(`variables given as ${what} are refused with Incorrect variable syntax`, async (t) => {
    const service = await startService(t);
    const account = await openAccount(service);
    const id = await createTemplate(service, account, greeting);
    const res = await post(service, '/v1/email', account.apiKey, emailBody({ body: undefined, template_id: id, variables }));
    assert.equal(res.statusCode, 400);
    assert.deepStrictEqual(res.json(), { message: 'Incorrect variable syntax' });
  });
}

test('a request subject with a malformed placeholder is refused with Incorrect variable syntax', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ body: undefined, subject: 'Hello {{name', template_id: id, variables: { name: 'Ana' } }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Incorrect variable syntax', detail: 'subject: line 1, column 7: {{name is never closed with }}' });
});

test('a template store that fails is answered with Error Fetching Template', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const id = await createTemplate(service, account, greeting);
  // A real failure of the store: the table is gone, while keys and accounts still work.
  await service.store.db.schema.dropTable('email_templates').execute();
  const res = await post(service, '/v1/email', account.apiKey, emailBody({ body: undefined, template_id: id, variables: { name: 'Ana' } }));
  assert.equal(res.statusCode, 400);
  assert.deepStrictEqual(res.json(), { message: 'Error Fetching Template' });
});
