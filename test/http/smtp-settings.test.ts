// GET /v1/smtp-settings (issue 22): where applications send by SMTP, as the settings say —
// exact answers with submission on, off and without a certificate; any key or member reads it.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import getTLSOptions from 'smtp-server/lib/tls-options.js';
import { issueApiKey } from '../../src/app/api-keys.ts';
import { get, keyWithScopes, openAccount, startService } from '../support/service.ts';
import { asUser, signedInUser, usersWorld } from '../support/users.ts';

const PASSWORD_TEXT = 'An API key of this account with the email scope (a test key\'s mail is captured, never sent)';

/** HERALD_SUBMISSION_TLS_KEY and _CERT: a real PEM pair in a throwaway directory. */
function certificateEnv(t: TestContext): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-submission-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { key, cert } = getTLSOptions();
  writeFileSync(join(dir, 'key.pem'), String(key));
  writeFileSync(join(dir, 'cert.pem'), String(cert));
  return { HERALD_SUBMISSION_TLS_KEY: join(dir, 'key.pem'), HERALD_SUBMISSION_TLS_CERT: join(dir, 'cert.pem') };
}

// Port 0: the servers bind free ports, and the settings name the ports as bound.
const LOOPBACK = { HERALD_SUBMISSION_HOST: '127.0.0.1' };

test('with both ports and a certificate the settings name the host, the STARTTLS port and the implicit TLS port as bound', async (t) => {
  const service = await startService(t, { env: { ...LOOPBACK, HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSIONS_PORT: '0', HERALD_SUBMISSION_PUBLIC_HOST: 'mail.example.com', ...certificateEnv(t) } });
  const account = await openAccount(service);
  const starttls = service.submission?.starttlsPort;
  const implicit = service.submission?.implicitTlsPort;
  assert.ok(starttls !== undefined && starttls > 0 && implicit !== undefined && implicit > 0 && starttls !== implicit);
  const res = await get(service, '/v1/smtp-settings', account.apiKey);
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, `{"enabled":true,"host":"mail.example.com","ports":[{"port":${starttls},"security":"starttls"},{"port":${implicit},"security":"tls"}],"username":"apikey","password":"${PASSWORD_TEXT}","loopbackOnly":false}`);
});

test('with submission off the settings say so, with no host and no ports', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const res = await get(service, '/v1/smtp-settings', account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [200, {
    enabled: false, host: null, ports: [], username: 'apikey', password: PASSWORD_TEXT, loopbackOnly: false,
  }]);
});

test('without a certificate the port is plain SMTP and AUTH is for loopback clients only, on the host of the public URL', async (t) => {
  const service = await startService(t, { env: { ...LOOPBACK, HERALD_SUBMISSION_PORT: '0', HERALD_PUBLIC_URL: 'https://herald.example.com' } });
  const account = await openAccount(service);
  const res = await get(service, '/v1/smtp-settings', account.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json()], [200, {
    enabled: true, host: 'herald.example.com', ports: [{ port: service.submission?.starttlsPort, security: 'none' }], username: 'apikey', password: PASSWORD_TEXT, loopbackOnly: true,
  }]);
});

test('a key with a scope other than email reads the settings', async (t) => {
  const service = await startService(t, { env: { ...LOOPBACK, HERALD_SUBMISSION_PORT: '0' } });
  const account = await openAccount(service);
  const res = await get(service, '/v1/smtp-settings', await keyWithScopes(service, account.id, ['webhooks']));
  assert.deepStrictEqual([res.statusCode, res.json().ports], [200, [{ port: service.submission?.starttlsPort, security: 'none' }]]);
});

test('a test key reads the settings', async (t) => {
  const service = await startService(t, { env: { ...LOOPBACK, HERALD_SUBMISSION_PORT: '0' } });
  const account = await openAccount(service);
  const testKey = await issueApiKey(service.deps, service.deps.db, account.id, { scopes: ['sms'], mode: 'test' });
  const res = await get(service, '/v1/smtp-settings', testKey.apiKey);
  assert.deepStrictEqual([res.statusCode, res.json().enabled], [200, true]);
});

test('a signed-in viewer reads the settings', async (t) => {
  const world = await usersWorld(t, { env: { ...LOOPBACK, HERALD_SUBMISSION_PORT: '0' } });
  const viewer = await signedInUser(world, 'vi@example.org', 'viewer');
  const res = await asUser(world.service, viewer, 'GET', '/v1/smtp-settings');
  assert.deepStrictEqual([res.statusCode, res.json().host], [200, 'localhost']);
});

test('without a key the settings answer 403 No API Key sent', async (t) => {
  const service = await startService(t, { env: { ...LOOPBACK, HERALD_SUBMISSION_PORT: '0' } });
  const res = await service.http.inject({ method: 'GET', url: '/v1/smtp-settings' });
  assert.deepStrictEqual([res.statusCode, res.json()], [403, { error: 'No API Key sent' }]);
});
