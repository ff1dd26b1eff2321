// `herald certificates verify RECEIPT MESSAGE [--jwks FILE|URL]`, run as a separate
// process the way an operator or a recipient's lawyer would, on files saved from a
// real certified delivery to the SMTP peer on loopback.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from '../../src/service.ts';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { emailBody, get, openAccount, post, startService } from '../support/service.ts';
import { heraldCli } from '../support/child-process.ts';

/** The CLI with only the given HERALD_* settings (none: no installation at all). */
const herald = heraldCli;

interface Saved {
  readonly service: Service;
  readonly databaseUrl: string;
  readonly dir: string;
  readonly msgid: string;
  /** receipt.jws, certificate.json, message.eml, jwks.json in `dir`. */
  path(name: string): string;
}

/** One certified delivery through a relay, its receipt, certificate JSON, .eml and JWKS saved as files. */
async function certifiedDelivery(t: TestContext): Promise<Saved> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-verify-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const databaseUrl = `sqlite:${join(dir, 'h.db')}`;
  const service = await startService(t, { env: { HERALD_DATABASE_URL: databaseUrl, HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } });
  const account = await openAccount(service);
  const msgid: string = (await post(service, '/v1/email', account.apiKey, emailBody({ certified: true }))).json().to[0].msgid;
  await service.worker.drain();

  const certificate = await get(service, `/v1/email/${msgid}/certificate`, account.apiKey);
  const path = (name: string): string => join(dir, name);
  writeFileSync(path('certificate.json'), certificate.body);
  writeFileSync(path('receipt.jws'), `${certificate.json().receipt}\n`);
  writeFileSync(path('message.eml'), (await get(service, `/v1/email/${msgid}/certificate.eml`, account.apiKey)).rawPayload);
  writeFileSync(path('jwks.json'), (await service.http.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body);
  return { service, databaseUrl, dir, msgid, path };
}

test('an untouched receipt and message verify offline with the published JWKS file: exit 0 and a VALID verdict', async (t) => {
  const saved = await certifiedDelivery(t);
  const run = await herald({}, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('message.eml'), '--jwks', saved.path('jwks.json'));

  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`^VALID: the receipt is signed by key \\S+ and ${saved.path('message.eml').replace(/[.\\]/g, '\\$&')} is the certified message\\.\n`));
  assert.match(run.stdout, new RegExp(`\n  msgid      ${saved.msgid}\n`));
});

test('one byte changed in the .eml makes the verification fail: exit 1 and an INVALID verdict', async (t) => {
  const saved = await certifiedDelivery(t);
  const eml = readFileSync(saved.path('message.eml'));
  eml.writeUInt8(eml.readUInt8(eml.length - 10) ^ 0x01, eml.length - 10);
  writeFileSync(saved.path('message.eml'), eml);
  const run = await herald({}, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('message.eml'), '--jwks', saved.path('jwks.json'));

  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^herald: INVALID: the message does not match the receipt: its SHA-256 is [0-9a-f]{64}, the receipt certifies [0-9a-f]{64}\n$/);
});

test('a tampered receipt fails: exit 1, the signature does not verify', async (t) => {
  const saved = await certifiedDelivery(t);
  const [header, payload, signature] = readFileSync(saved.path('receipt.jws'), 'utf8').trim().split('.');
  const forged = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
  forged.accepted_at = '2020-01-01T00:00:00.000Z';
  writeFileSync(saved.path('receipt.jws'), `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`);
  const run = await herald({}, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('message.eml'), '--jwks', saved.path('jwks.json'));

  assert.deepStrictEqual([run.code, run.stderr], [1, 'herald: INVALID: the signature does not verify: the receipt was altered or signed by another key\n']);
});

test('the certificate JSON as downloaded is accepted in place of the bare receipt', async (t) => {
  const saved = await certifiedDelivery(t);
  const run = await herald({}, 'certificates', 'verify', saved.path('certificate.json'), saved.path('message.eml'), '--jwks', saved.path('jwks.json'), '--json');

  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.deepStrictEqual([out.valid, out.receipt.msgid, out.sha256], [true, saved.msgid, out.receipt.sha256]);
});

test("without --jwks the installation's own key is read from its database", async (t) => {
  const saved = await certifiedDelivery(t);
  const run = await herald({ HERALD_DATABASE_URL: saved.databaseUrl }, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('message.eml'));
  assert.equal(run.code, 0, run.stderr);
});

test('--jwks takes the URL of the published key set', async (t) => {
  const saved = await certifiedDelivery(t);
  await saved.service.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = saved.service.http.server.address() as AddressInfo;
  const run = await herald({}, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('message.eml'), '--jwks', `http://127.0.0.1:${port}/.well-known/jwks.json`);
  assert.equal(run.code, 0, run.stderr);
});

test("another installation's key set does not verify the receipt", async (t) => {
  const saved = await certifiedDelivery(t);
  const other = await certifiedDelivery(t);
  const run = await herald({}, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('message.eml'), '--jwks', other.path('jwks.json'));
  assert.deepStrictEqual([run.code, run.stderr], [1, 'herald: INVALID: no key of the key set matches the receipt (kid)\n']);
});

test('a receipt file that holds no receipt is refused with exit 1', async (t) => {
  const saved = await certifiedDelivery(t);
  writeFileSync(saved.path('receipt.jws'), '{"hello":"world"}');
  const run = await herald({}, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('message.eml'), '--jwks', saved.path('jwks.json'));
  assert.deepStrictEqual([run.code, run.stderr], [1, `herald: INVALID: ${saved.path('receipt.jws')} holds neither a JWS nor a certificate JSON with a receipt\n`]);
});

test('a missing message file is named in the refusal', async (t) => {
  const saved = await certifiedDelivery(t);
  const run = await herald({}, 'certificates', 'verify', saved.path('receipt.jws'), saved.path('nope.eml'), '--jwks', saved.path('jwks.json'));
  assert.deepStrictEqual([run.code, run.stderr], [1, `herald: cannot read ${saved.path('nope.eml')} (ENOENT)\n`]);
});
