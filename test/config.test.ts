import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadConfig, unknownSettingWarnings } from '../src/config.ts';

test('with no variables set the service runs on port 8080, SQLite under ./data and capture transports', () => {
  const config = loadConfig({});
  assert.deepStrictEqual({ ...config }, {
    port: 8080,
    host: '0.0.0.0',
    databaseUrl: 'sqlite:./data/herald.db',
    databasePoolSize: 10,
    adminToken: undefined,
    publicUrl: 'http://localhost:8080',
    trustProxy: false,
    emailTransport: 'capture',
    smsTransport: 'capture',
    smsReassemblyTimeoutMs: 300_000,
    whatsappTransport: 'capture',
    bodyLimitBytes: 10485760,
    importBodyLimitBytes: 268435456,
    importMaxAttempts: 3,
    accountMaxContacts: 5000000,
    accountMaxUploadBytes: 1073741824,
    accountMaxImports: 3,
    heavyReadTimeoutMs: 5000,
    fetchAllowPrivate: false,
    webhookTimeoutMs: 10000,
    dnsServers: [],
    bounceDomain: undefined,
    heloName: undefined,
    inboundSmtpPort: undefined,
    inboundSmtpHost: '0.0.0.0',
    inboundSmtpTlsKey: undefined,
    inboundSmtpTlsCert: undefined, inboundEmailMaxBytes: 26214400,
    submissionPort: undefined,
    submissionsPort: undefined,
    submissionHost: '0.0.0.0',
    submissionPublicHost: undefined,
    submissionTlsKey: undefined,
    submissionTlsCert: undefined,
    submissionMaxConnectionsPerAddress: 50,
    emailRetryHours: 72,
    trackedLinkDays: 90,
    simulatorStepMs: 2000,
    whatsappAppSecret: undefined,
    whatsappVerifyToken: undefined,
    inboundMediaMaxBytes: 16_777_216,
    inboundPerSenderPerMinute: 60,
    redisUrl: undefined,
    redisFailure: 'local',
    redisPrefix: 'herald:',
    role: 'all',
    outboxLeaseSeconds: 300,
    maxEmailRecipients: 2000,
    maxAttachments: 20,
    maxAttachmentBytes: 10485760,
    maxSubjectLength: 2000,
    maxTemplateLength: 1048576,
    maxTemplatePlaceholders: 5000,
    maxTemplateDepth: 50,
    maxRenderedLength: 10485760,
    maxSmsSegments: 10,
    maxSmsNumbers: 1000,
    maxTextRequestBytes: 1048576,
    maxMetadataBytes: 4096,
    maxMetadataDepth: 16,
    templateCacheBytes: 33554432,
    retentionDays: 0,
    sessionIdleMinutes: 60,
    sessionMaxHours: 12,
    sessionRateLimitPerSecond: 20,
    invitationHours: 72,
    passwordResetMinutes: 60,
    authEmailFrom: undefined,
    logLevel: 'info',
    logFormat: 'json',
    metricsPort: undefined,
    metricsHost: '127.0.0.1',
    httpHeadersTimeoutMs: 10000,
    httpRequestTimeoutMs: 120000,
    httpKeepAliveTimeoutMs: 5000,
  });
});

test('a request limit is set by its HERALD_MAX_ variable within its range', () => {
  assert.equal(loadConfig({ HERALD_MAX_SMS_SEGMENTS: '15' }).maxSmsSegments, 15);
  assert.throws(() => loadConfig({ HERALD_MAX_SMS_SEGMENTS: '256' }), { name: 'ConfigError', message: 'HERALD_MAX_SMS_SEGMENTS: expected a number from 1 to 255, got 256' });
});

test('HERALD_AUTH_EMAIL_FROM takes "Name <address>" or an address, and refuses anything else', () => {
  assert.deepStrictEqual(loadConfig({ HERALD_AUTH_EMAIL_FROM: 'Acme Mail <no-reply@acme.example>' }).authEmailFrom, { email: 'no-reply@acme.example', name: 'Acme Mail' });
  assert.deepStrictEqual(loadConfig({ HERALD_AUTH_EMAIL_FROM: 'no-reply@acme.example' }).authEmailFrom, { email: 'no-reply@acme.example', name: 'herald' });
  assert.throws(() => loadConfig({ HERALD_AUTH_EMAIL_FROM: 'Acme <not an address>' }), {
    name: 'ConfigError', message: 'HERALD_AUTH_EMAIL_FROM: expected "Name <address>" or an address, got "Acme <not an address>"',
  });
});

test('HERALD_ROLE names what the process runs, and nothing else is accepted', () => {
  assert.equal(loadConfig({ HERALD_ROLE: 'worker' }).role, 'worker');
  assert.throws(() => loadConfig({ HERALD_ROLE: 'both' }), { name: 'ConfigError', message: 'HERALD_ROLE: expected one of all, api, worker' });
});

test('the configuration is frozen', () => {
  assert.equal(Object.isFrozen(loadConfig({})), true);
});

const BAD_VALUES: [Record<string, string>, string][] = [
  [{ HERALD_PORT: 'eighty' }, 'HERALD_PORT: expected a whole number, got "eighty"'],
  [{ HERALD_PORT: '70000' }, 'HERALD_PORT: expected a number from 0 to 65535, got 70000'],
  [{ HERALD_DATABASE_URL: 'mysql://x' }, 'HERALD_DATABASE_URL: expected sqlite:<path> or a postgres:// / postgresql:// URL'],
  [{ HERALD_DATABASE_URL: 'postgres:localhost' }, 'HERALD_DATABASE_URL: expected sqlite:<path> or a postgres:// / postgresql:// URL'],
  [{ HERALD_DATABASE_POOL_SIZE: '0' }, 'HERALD_DATABASE_POOL_SIZE: expected a number from 1 to 1000, got 0'],
  [{ HERALD_ADMIN_TOKEN: 'short' }, 'HERALD_ADMIN_TOKEN: must be at least 16 characters'],
  [{ HERALD_PUBLIC_URL: 'ftp://x' }, 'HERALD_PUBLIC_URL: expected an http(s) URL, got "ftp://x"'],
  [{ HERALD_EMAIL_TRANSPORT: 'sendmail' }, 'HERALD_EMAIL_TRANSPORT: expected "capture", "mx" or a smtp:// / smtps:// URL'],
  [{ HERALD_EMAIL_TRANSPORT: 'smtp://user:secret@relay.example.com?delivered=always' }, 'HERALD_EMAIL_TRANSPORT: the SMTP relay URL option "delivered" must be one of notice, accepted'],
  [{ HERALD_SMS_TRANSPORT: 'http://user:secret@smsc' }, 'HERALD_SMS_TRANSPORT: expected "capture" or a smpp:// / smpps:// URL'],
  [{ HERALD_DNS_SERVERS: '127.0.0.1:53,dns.example' }, 'HERALD_DNS_SERVERS: expected IP addresses (ip, ip:port or [ipv6]:port), got "dns.example"'],
  [{ HERALD_BOUNCE_DOMAIN: 'not a host' }, 'HERALD_BOUNCE_DOMAIN: expected a host name, got "not a host"'],
  [{ HERALD_FETCH_ALLOW_PRIVATE: 'yes' }, 'HERALD_FETCH_ALLOW_PRIVATE: expected true or false, got "yes"'],
  [{ HERALD_WEBHOOK_TIMEOUT_MS: '50' }, 'HERALD_WEBHOOK_TIMEOUT_MS: expected a number from 100 to 120000, got 50'],
  [{ HERALD_INBOUND_SMTP_PORT: 'on' }, 'HERALD_INBOUND_SMTP_PORT: expected a whole number, got "on"'],
  // A readable file (this one) for the key, and no certificate.
  [{ HERALD_INBOUND_SMTP_TLS_KEY: fileURLToPath(import.meta.url) }, 'HERALD_INBOUND_SMTP_TLS_CERT: set it together with HERALD_INBOUND_SMTP_TLS_KEY, or neither'],
  [{ HERALD_INBOUND_SMTP_TLS_KEY: '/nonexistent/herald/key.pem' }, 'HERALD_INBOUND_SMTP_TLS_KEY: cannot read /nonexistent/herald/key.pem (ENOENT)'],
  [{ HERALD_TRUST_PROXY: 'maybe' }, 'HERALD_TRUST_PROXY: expected false, true, a hop count or a comma-separated list of IPs and CIDRs, got "maybe"'],
  [{ HERALD_TRUST_PROXY: '10.0.0.0/8,proxy.internal' }, 'HERALD_TRUST_PROXY: expected false, true, a hop count or a comma-separated list of IPs and CIDRs, got "proxy.internal"'],
  [{ HERALD_HOST: 'every interface' }, 'HERALD_HOST: expected an IP address or a host name to listen on, got "every interface"'],
  [{ HERALD_INBOUND_SMTP_HOST: '0.0.0.0:25' }, 'HERALD_INBOUND_SMTP_HOST: expected an IP address or a host name to listen on, got "0.0.0.0:25"'],
  [{ HERALD_METRICS_PORT: '9464x' }, 'HERALD_METRICS_PORT: expected a whole number, got "9464x"'],
  [{ HERALD_LOG_FORMAT: 'text' }, 'HERALD_LOG_FORMAT: expected one of json, pretty, got "text"'],
  [{ HERALD_HTTP_HEADERS_TIMEOUT_MS: '5' }, 'HERALD_HTTP_HEADERS_TIMEOUT_MS: expected a number from 100 to 600000, got 5'],
  [{ HERALD_HTTP_REQUEST_TIMEOUT_MS: '5000' }, 'HERALD_HTTP_REQUEST_TIMEOUT_MS: must be at least HERALD_HTTP_HEADERS_TIMEOUT_MS (10000)'],
  [{ HERALD_ADMIN_TOKEN: 'CHANGE-ME-at-least-16-characters' }, 'HERALD_ADMIN_TOKEN: is the example file\'s placeholder; set a secret of your own (e.g. `openssl rand -base64 32`), or leave it unset to have one generated'],
  [{ HERALD_LOG_LEVEL: 'loud' }, 'HERALD_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent'],
  [{ HERALD_REDIS_URL: 'http://:secret@cache:6379' }, 'HERALD_REDIS_URL: expected a redis:// or rediss:// URL'],
  [{ HERALD_REDIS_FAILURE: 'open' }, 'HERALD_REDIS_FAILURE: expected local or closed, got "open"'],
  [{ HERALD_REDIS_PREFIX: 'herald prod' }, 'HERALD_REDIS_PREFIX: expected up to 64 letters, digits, ":", "_", "." or "-"'],
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
  assert.equal(loadConfig({ HERALD_TRUST_PROXY: 'loopback,192.0.2.7' }).trustProxy, 'loopback,192.0.2.7');
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

test('HERALD_DATABASE_URL takes postgres:// and postgresql:// URLs as given, and a pool size', () => {
  const config = loadConfig({ HERALD_DATABASE_URL: 'postgres://herald:s3cret@db.internal:5432/herald?sslmode=require', HERALD_DATABASE_POOL_SIZE: '25' });
  assert.equal(config.databaseUrl, 'postgres://herald:s3cret@db.internal:5432/herald?sslmode=require');
  assert.equal(config.databasePoolSize, 25);
  assert.equal(loadConfig({ HERALD_DATABASE_URL: 'postgresql://db/herald' }).databaseUrl, 'postgresql://db/herald');
});

test('a bad HERALD_DATABASE_URL is refused without echoing its password', () => {
  assert.throws(() => loadConfig({ HERALD_DATABASE_URL: 'mysql://herald:s3cret@db/herald' }), (error: Error) => !error.message.includes('s3cret'));
});

test('HERALD_PUBLIC_URL loses its trailing slash', () => {
  assert.equal(loadConfig({ HERALD_PUBLIC_URL: 'https://mail.example.com/' }).publicUrl, 'https://mail.example.com');
});

test('HERALD_REDIS_URL takes redis:// and rediss:// URLs with a password as given', () => {
  assert.equal(loadConfig({ HERALD_REDIS_URL: 'redis://:s3cret@cache.internal:6379/2' }).redisUrl, 'redis://:s3cret@cache.internal:6379/2');
  assert.equal(loadConfig({ HERALD_REDIS_URL: 'rediss://default:s3cret@cache.example.com' }).redisUrl, 'rediss://default:s3cret@cache.example.com');
});

test('a bad HERALD_REDIS_URL is refused without echoing its password', () => {
  assert.throws(() => loadConfig({ HERALD_REDIS_URL: 'http://:secret@cache:6379' }), (error: Error) => !error.message.includes('secret'));
});

test('HERALD_REDIS_FAILURE takes closed', () => {
  assert.equal(loadConfig({ HERALD_REDIS_FAILURE: 'closed' }).redisFailure, 'closed');
});

test('HERALD_INBOUND_SMTP_PORT takes a port, 0 for a free one, or off', () => {
  assert.equal(loadConfig({ HERALD_INBOUND_SMTP_PORT: '2525' }).inboundSmtpPort, 2525);
  assert.equal(loadConfig({ HERALD_INBOUND_SMTP_PORT: '0' }).inboundSmtpPort, 0);
  assert.equal(loadConfig({ HERALD_INBOUND_SMTP_PORT: 'off' }).inboundSmtpPort, undefined);
});

test('every placeholder admin token of the example files is refused', async () => {
  const { readFile } = await import('node:fs/promises');
  const root = new URL('../', import.meta.url);
  const examples = [
    /^HERALD_ADMIN_TOKEN=(.+)$/m.exec(await readFile(new URL('deploy/systemd/herald.env.example', root), 'utf8'))?.[1],
    /^HERALD_ADMIN_TOKEN=(.+)$/m.exec(await readFile(new URL('docs/deployment.md', root), 'utf8'))?.[1],
    /^#\s+HERALD_ADMIN_TOKEN=(.+)$/m.exec(await readFile(new URL('compose.yaml', root), 'utf8'))?.[1],
  ];
  assert.deepStrictEqual(examples, ['CHANGE-ME-at-least-16-characters', 'change-me-at-least-16-characters', '<at least 16 characters>']);
  for (const token of examples) {
    assert.throws(() => loadConfig({ HERALD_ADMIN_TOKEN: token }), { name: 'ConfigError', message: /^HERALD_ADMIN_TOKEN: is the example file's placeholder/ });
  }
});

test('a token of 16 random characters is accepted', () => {
  assert.equal(loadConfig({ HERALD_ADMIN_TOKEN: 'q8Zr2LwT0pXe5VbN' }).adminToken, 'q8Zr2LwT0pXe5VbN');
});

test('an unknown HERALD_ variable is warned about, with the setting it most resembles', () => {
  assert.deepStrictEqual(unknownSettingWarnings({ HERALD_PORTT: '8080', HERALD_LOG_LEVL: 'debug', HERALD_COLOUR: 'blue', HERALD_PORT: '8080', PATH: '/usr/bin' }), [
    'HERALD_COLOUR is not a herald setting and is ignored',
    'HERALD_LOG_LEVL is not a herald setting and is ignored; did you mean HERALD_LOG_LEVEL?',
    'HERALD_PORTT is not a herald setting and is ignored; did you mean HERALD_PORT?',
  ]);
});

test('the test suite\'s own HERALD_TEST_ variables are not warned about', () => {
  assert.deepStrictEqual(unknownSettingWarnings({ HERALD_TEST_STORE: 'postgres', HERALD_TEST_RUN: '1' }), []);
});
