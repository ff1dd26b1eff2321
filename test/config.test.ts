import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';

test('with no variables set the service runs on port 8080, SQLite under ./data and capture transports', () => {
  const config = loadConfig({});
  assert.deepStrictEqual({ ...config }, {
    port: 8080,
    host: '0.0.0.0',
    databaseUrl: 'sqlite:./data/herald.db',
    adminToken: undefined,
    publicUrl: 'http://localhost:8080',
    trustProxy: false,
    emailTransport: 'capture',
    smsTransport: 'capture',
    whatsappTransport: 'capture',
    bodyLimitBytes: 10485760,
    fetchAllowPrivate: false,
    dnsServers: [],
    bounceDomain: undefined,
    heloName: undefined,
    emailRetryHours: 72,
    whatsappAppSecret: undefined,
    whatsappVerifyToken: undefined,
    logLevel: 'info',
  });
});

test('the configuration is frozen', () => {
  assert.equal(Object.isFrozen(loadConfig({})), true);
});

const BAD_VALUES: [Record<string, string>, string][] = [
  [{ HERALD_PORT: 'eighty' }, 'HERALD_PORT: expected a whole number, got "eighty"'],
  [{ HERALD_PORT: '70000' }, 'HERALD_PORT: expected a number from 0 to 65535, got 70000'],
  [{ HERALD_DATABASE_URL: 'mysql://x' }, 'HERALD_DATABASE_URL: expected sqlite:<path>, got "mysql://x"'],
  [{ HERALD_DATABASE_URL: 'postgres://localhost/herald' }, 'HERALD_DATABASE_URL: PostgreSQL is not available in this version; use sqlite:<path>'],
  [{ HERALD_ADMIN_TOKEN: 'short' }, 'HERALD_ADMIN_TOKEN: must be at least 16 characters'],
  [{ HERALD_PUBLIC_URL: 'ftp://x' }, 'HERALD_PUBLIC_URL: expected an http(s) URL, got "ftp://x"'],
  [{ HERALD_EMAIL_TRANSPORT: 'sendmail' }, 'HERALD_EMAIL_TRANSPORT: expected "capture", "mx" or a smtp:// / smtps:// URL'],
  [{ HERALD_SMS_TRANSPORT: 'http://user:secret@smsc' }, 'HERALD_SMS_TRANSPORT: expected "capture" or a smpp:// / smpps:// URL'],
  [{ HERALD_DNS_SERVERS: '127.0.0.1:53,dns.example' }, 'HERALD_DNS_SERVERS: expected IP addresses (ip, ip:port or [ipv6]:port), got "dns.example"'],
  [{ HERALD_BOUNCE_DOMAIN: 'not a host' }, 'HERALD_BOUNCE_DOMAIN: expected a host name, got "not a host"'],
  [{ HERALD_FETCH_ALLOW_PRIVATE: 'yes' }, 'HERALD_FETCH_ALLOW_PRIVATE: expected true or false, got "yes"'],
  [{ HERALD_LOG_LEVEL: 'loud' }, 'HERALD_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent'],
];

for (const [env, message] of BAD_VALUES) {
  test(`a bad ${Object.keys(env)[0]} stops the start with "${message}"`, () => {
    assert.throws(() => loadConfig(env), { name: 'ConfigError', message });
  });
}

test('HERALD_TRUST_PROXY takes false, true, a hop count or a list of addresses', () => {
  assert.equal(loadConfig({ HERALD_TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ HERALD_TRUST_PROXY: '2' }).trustProxy, 2);
  assert.equal(loadConfig({ HERALD_TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy, '10.0.0.0/8,::1');
});

test('transport URLs with credentials are accepted as given', () => {
  const config = loadConfig({ HERALD_EMAIL_TRANSPORT: 'smtps://user:pass@relay.example.com:465', HERALD_SMS_TRANSPORT: 'smpp://sys:pw@127.0.0.1:2775?window=5' });
  assert.equal(config.emailTransport, 'smtps://user:pass@relay.example.com:465');
  assert.equal(config.smsTransport, 'smpp://sys:pw@127.0.0.1:2775?window=5');
});

test('a bad transport URL is refused without echoing its credentials', () => {
  assert.throws(() => loadConfig({ HERALD_SMS_TRANSPORT: 'http://user:secret@smsc' }), (error: Error) => !error.message.includes('secret'));
});

test('HERALD_DNS_SERVERS takes IPv4 and IPv6 servers with or without ports', () => {
  assert.deepStrictEqual(loadConfig({ HERALD_DNS_SERVERS: '127.0.0.1:5353, ::1, [::1]:53, 192.0.2.1' }).dnsServers, ['127.0.0.1:5353', '::1', '[::1]:53', '192.0.2.1']);
});

test('HERALD_PUBLIC_URL loses its trailing slash', () => {
  assert.equal(loadConfig({ HERALD_PUBLIC_URL: 'https://mail.example.com/' }).publicUrl, 'https://mail.example.com');
});
