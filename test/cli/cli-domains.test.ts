// `domains …` in the CLI: the records to publish on add, list and show, and verify
// against a real DNS server on loopback (HERALD_DNS_SERVERS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDnsServer, type DnsPeer } from '../peers/dns-server.ts';
import { heraldCli } from '../support/child-process.ts';
import { createAccountByCli, databaseUrl, herald, heraldJson } from '../support/cli-database.ts';

interface Record_ { type: string; name: string; value: string; purpose: string }

/** Publishes the verification and DKIM records a domain view asks for. */
function publish(dns: DnsPeer, records: readonly Record_[]): void {
  for (const r of records.filter((rec) => rec.purpose === 'verification' || rec.purpose === 'dkim')) {
    dns.set(r.name, [{ type: 'TXT', name: r.name, data: r.value.length > 255 ? [r.value.slice(0, 255), r.value.slice(255)] : r.value }]);
  }
}

test('domains add prints the five records to publish', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const run = await herald(url, 'domains', 'add', acme.account.id, 'News.Acme.org');
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n');
  assert.deepStrictEqual(lines.slice(0, 3), [
    'Sender domain news.acme.org (not verified: email from it is refused until it is)',
    'DNS records to publish:',
    '  type  name                                   value',
  ]);
  assert.match(lines[3] ?? '', /^ {2}TXT {3}_herald\.news\.acme\.org {18}herald-verification=[A-Za-z0-9_-]{43}$/);
  assert.match(lines[4] ?? '', /^ {2}TXT {3}herald\d{6}\._domainkey\.news\.acme\.org {2}v=DKIM1; k=rsa; p=[A-Za-z0-9+/]{392}$/);
  assert.equal(lines[5], '  TXT   news.acme.org                          v=spf1 include:localhost ~all');
  assert.equal(lines[6], '  TXT   _dmarc.news.acme.org                   v=DMARC1; p=none; rua=mailto:dmarc-reports@news.acme.org');
  assert.equal(lines[7], '  MX    localhost                              10 localhost');
});

test('domains add --json answers what the operator API answers: state and records', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const out = await heraldJson(url, 'domains', 'add', acme.account.id, 'news.acme.org');
  assert.deepStrictEqual([out.domain, out.verified, out.verifiedAt, out.records.map((r: Record_) => r.purpose)], [
    'news.acme.org', false, null, ['verification', 'dkim', 'spf', 'dmarc', 'bounces'],
  ]);
});

test('domains add with a bad name names the argument and the value', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const run = await herald(url, 'domains', 'add', acme.account.id, 'localhost');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: DOMAIN: "localhost" must be a host name with a dot, e.g. example.com\n');
});

test('domains list and show give the same records as add', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url, 'acme', '--domain', 'example.com');
  const added = await heraldJson(url, 'domains', 'add', acme.account.id, 'news.acme.org');
  const list = await heraldJson(url, 'domains', 'list', acme.account.id);
  assert.deepStrictEqual(list.domains.map((d: { domain: string }) => d.domain), ['example.com', 'news.acme.org']);
  assert.deepStrictEqual(list.domains[1], added);
  assert.deepStrictEqual(await heraldJson(url, 'domains', 'show', acme.account.id, 'NEWS.acme.org'), added);
  const text = await herald(url, 'domains', 'list', acme.account.id);
  assert.match(text.stdout, /^example\.com \(verified \d{4}-[^)]+\)\nnews\.acme\.org \(not verified: email from it is refused until it is\)\n$/);
});

test('domains show of a domain the account lacks exits 1 with Not found', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const run = await herald(url, 'domains', 'show', acme.account.id, 'other.org');
  assert.deepStrictEqual([run.code, run.stderr], [1, 'herald: Not found\n']);
});

test('domains verify without a domain checks every domain of the account against DNS', async (t) => {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const published = await heraldJson(url, 'domains', 'add', acme.account.id, 'news.acme.org');
  await heraldJson(url, 'domains', 'add', acme.account.id, 'shop.acme.org');
  publish(dns, published.records);
  const run = await heraldCli({ HERALD_DATABASE_URL: url, HERALD_DNS_SERVERS: dns.server }, 'domains', 'verify', acme.account.id, '--json');
  assert.equal(run.code, 0, run.stderr);
  // Not a terminal: no progress line on stderr.
  assert.equal(run.stderr, '');
  const out = JSON.parse(run.stdout);
  assert.deepStrictEqual(out.domains.map((d: { domain: string; verified: boolean; checks: { ok: boolean }[] }) => [d.domain, d.verified, d.checks.map((c) => c.ok)]), [
    ['news.acme.org', true, [true, true, false, false]],
    ['shop.acme.org', false, [false, false, false, false]],
  ]);
});

test('domains verify prints each check for a person', async (t) => {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const added = await heraldJson(url, 'domains', 'add', acme.account.id, 'news.acme.org');
  publish(dns, added.records.filter((r: Record_) => r.purpose === 'verification'));
  const run = await heraldCli({ HERALD_DATABASE_URL: url, HERALD_DNS_SERVERS: dns.server }, 'domains', 'verify', acme.account.id, 'news.acme.org');
  assert.equal(run.code, 0, run.stderr);
  const dkim = added.records[1].name;
  assert.equal(run.stdout, [
    'news.acme.org (not verified: email from it is refused until it is)',
    '  _herald.news.acme.org                  matches',
    `  ${dkim}  not found`,
    '  news.acme.org                          not found (spf, advisory)',
    '  _dmarc.news.acme.org                   not found (dmarc, advisory)',
    '',
  ].join('\n'));
});

test('domains verify of a domain the account lacks names it', async (t) => {
  const url = databaseUrl(t);
  const acme = await createAccountByCli(url);
  const run = await herald(url, 'domains', 'verify', acme.account.id, 'other.org');
  assert.deepStrictEqual([run.code, run.stderr], [1, 'herald: other.org: Not found\n']);
});

test('receiving-domains mark-verified of a domain no account has exits 1 with Not found', async (t) => {
  const run = await herald(databaseUrl(t), 'receiving-domains', 'mark-verified', 'in.nowhere.example');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, 'herald: Not found\n');
});
