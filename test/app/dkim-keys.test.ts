// dkimKeyLookup: the signing key the email transports ask for at delivery.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { addSenderDomain } from '../../src/app/add-sender-domain.ts';
import { createAccount } from '../../src/app/create-account.ts';
import { dkimKeyLookup } from '../../src/app/dkim-keys.ts';
import { getSenderDomain } from '../../src/app/sender-domains.ts';
import type { Service } from '../../src/service.ts';
import { findSenderDomain, insertSenderDomain, markSenderDomainVerified } from '../../src/store/sender-domains.ts';
import { startService } from '../support/service.ts';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const PEM = /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PRIVATE KEY-----\n$/;

async function accountWith(t: TestContext): Promise<{ service: Service; accountId: string }> {
  const service = await startService(t, { clock: () => T0 });
  const { account } = await createAccount(service.deps, { name: 'acme' });
  return { service, accountId: account.id };
}

async function add(service: Service, accountId: string, domain: string, verified: boolean): Promise<void> {
  const added = await addSenderDomain(service.deps, accountId, { domain, verified });
  assert.equal(added.ok, true);
}

test('a verified domain\'s key is its selector and PKCS#8 private key', async (t) => {
  const { service, accountId } = await accountWith(t);
  await add(service, accountId, 'news.acme.org', true);
  const key = await dkimKeyLookup(service.deps.db)(accountId, 'news.acme.org');
  assert.equal(key?.selector, 'herald203001');
  assert.match(key?.privateKey ?? '', PEM);
});

test('the private key pairs with the public key in the published DKIM record', async (t) => {
  const { service, accountId } = await accountWith(t);
  await add(service, accountId, 'news.acme.org', true);
  const key = await dkimKeyLookup(service.deps.db)(accountId, 'news.acme.org');
  const view = await getSenderDomain(service.deps, accountId, 'news.acme.org');
  assert.ok(view.ok && key);
  const published = view.value.records.find((r) => r.purpose === 'dkim')?.value;
  const derived = createPublicKey(key.privateKey).export({ type: 'spki', format: 'der' }).toString('base64');
  assert.equal(published, `v=DKIM1; k=rsa; p=${derived}`);
});

test('the domain is matched whatever its case', async (t) => {
  const { service, accountId } = await accountWith(t);
  await add(service, accountId, 'news.acme.org', true);
  const key = await dkimKeyLookup(service.deps.db)(accountId, 'News.ACME.org');
  assert.equal(key?.selector, 'herald203001');
});

test('an unverified domain has no signing key', async (t) => {
  const { service, accountId } = await accountWith(t);
  await add(service, accountId, 'news.acme.org', false);
  assert.equal(await dkimKeyLookup(service.deps.db)(accountId, 'news.acme.org'), undefined);
});

test('an unknown domain has no signing key', async (t) => {
  const { service, accountId } = await accountWith(t);
  assert.equal(await dkimKeyLookup(service.deps.db)(accountId, 'nothing.acme.org'), undefined);
});

test('another account\'s domain has no signing key for me', async (t) => {
  const { service, accountId } = await accountWith(t);
  await add(service, accountId, 'news.acme.org', true);
  const { account: other } = await createAccount(service.deps, { name: 'other' });
  assert.equal(await dkimKeyLookup(service.deps.db)(other.id, 'news.acme.org'), undefined);
});

test('a verified domain stored without keys has no signing key', async (t) => {
  const { service, accountId } = await accountWith(t);
  await insertSenderDomain(service.deps.db, { id: service.deps.newId(), accountId, domain: 'old.acme.org', verified: true, createdAt: T0 });
  assert.equal(await dkimKeyLookup(service.deps.db)(accountId, 'old.acme.org'), undefined);
});

test('answers are reused for the cache time, then looked up again', async (t) => {
  const { service, accountId } = await accountWith(t);
  await add(service, accountId, 'news.acme.org', false);
  const clock = { now: T0 };
  const lookup = dkimKeyLookup(service.deps.db, { ttlMs: 60_000, clock: () => clock.now });
  assert.equal(await lookup(accountId, 'news.acme.org'), undefined);

  const domain = await findSenderDomain(service.deps.db, accountId, 'news.acme.org');
  assert.ok(domain);
  await markSenderDomainVerified(service.deps.db, domain.id, T0);
  clock.now = T0 + 59_999;
  assert.equal(await lookup(accountId, 'news.acme.org'), undefined);
  clock.now = T0 + 60_000;
  assert.equal((await lookup(accountId, 'news.acme.org'))?.selector, 'herald203001');
});
