import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { startDnsServer } from './dns-server.ts';

test('the DNS peer answers MX and TXT look-ups from its zone', async (t) => {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  dns.set('example.org', [
    { type: 'MX', name: 'example.org', ttl: 60, data: { preference: 10, exchange: 'mx1.example.org' } },
    { type: 'TXT', name: 'example.org', ttl: 60, data: ['v=spf1 -all'] },
  ]);
  const resolver = new Resolver();
  resolver.setServers([dns.server]);
  assert.deepStrictEqual((await resolver.resolveMx('example.org')).map(({ priority, exchange }) => ({ priority, exchange })), [{ priority: 10, exchange: 'mx1.example.org' }]);
  assert.deepStrictEqual(await resolver.resolveTxt('example.org'), [['v=spf1 -all']]);
  await assert.rejects(resolver.resolveMx('nowhere.example'), { code: 'ENOTFOUND' });
});

test('the DNS peer answers a TXT record too long for a plain UDP answer', async (t) => {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  // Each string at most 255 octets; a fresh array each time, since dns-packet encodes TXT data in place.
  const long = () => ['v=DKIM1; k=rsa; p=' + 'A'.repeat(230), 'B'.repeat(250), 'C'.repeat(100)];
  dns.set('sel._domainkey.example.com', [{ type: 'TXT', name: 'sel._domainkey.example.com', ttl: 60, data: long() }]);
  const resolver = new Resolver();
  resolver.setServers([dns.server]);
  assert.deepStrictEqual(await resolver.resolveTxt('sel._domainkey.example.com'), [long()]);
});
