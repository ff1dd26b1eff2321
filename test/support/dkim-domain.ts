// A sender domain whose DKIM signatures a receiving peer can check: example.com with a key
// of its own, the public half published in a loopback DNS server (test/peers/dns-server.ts),
// and a resolver that asks only that server (for mailauth's dkimVerify).
import { Resolver } from 'node:dns/promises';
import type { TestContext } from 'node:test';
import { generateDkimKeys } from '../../src/app/dkim-keys.ts';
import type { Service } from '../../src/service.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';
import { startDnsServer } from '../peers/dns-server.ts';

/** mailauth's resolver option: TXT look-ups answered by the loopback DNS server only. */
export type DkimResolver = (name: string, type: string) => Promise<string[][]>;

/**
 * Gives the account a verified example.com with a DKIM key made at `now`, publishes the key
 * in a loopback DNS server (closed when the test ends), and returns the resolver that reads it.
 */
export async function dkimSignedExampleCom(t: TestContext, service: Pick<Service, 'deps'>, accountId: string, now: number): Promise<DkimResolver> {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dns.server]);
  const dkim = await generateDkimKeys(now);
  await insertSenderDomain(service.deps.db, { id: service.deps.newId(), accountId, domain: 'example.com', verified: true, createdAt: now, dkim });
  const name = `${dkim.selector}._domainkey.example.com`;
  dns.set(name, [{ type: 'TXT', name, ttl: 60, data: `v=DKIM1; k=rsa; p=${dkim.publicKey}`.match(/.{1,255}/g) ?? [] }]);
  return (host, type) => resolver.resolve(host, type) as Promise<string[][]>;
}
