// Which opens and clicks a person made, and which a prefetcher or a scanner made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyEngagement, type EngagementHit, type EngagementHistory } from '../../src/domain/machine-detection.ts';

const DELIVERED = Date.UTC(2025, 0, 1, 9, 0, 0);
const LATER = DELIVERED + 60_000;
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const APPLE_MAIL = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';

const history: EngagementHistory = { deliveredAt: DELIVERED, clicks: [] };
const open = (overrides: Partial<EngagementHit> = {}): EngagementHit => ({ kind: 'open', method: 'GET', ip: '198.51.100.7', userAgent: CHROME, at: LATER, ...overrides });
const click = (overrides: Partial<EngagementHit> = {}): EngagementHit => open({ kind: 'click', url: 'https://example.com/a', ...overrides });

test('a browser opening a minute after delivery is a person', () => {
  assert.deepStrictEqual(classifyEngagement(open(), history), { machine: false });
});

test('Apple Mail itself (no privacy protection) is a person', () => {
  assert.deepStrictEqual(classifyEngagement(open({ userAgent: APPLE_MAIL }), history), { machine: false });
});

test('Apple Mail Privacy Protection\'s bare Mozilla/5.0 user agent is a machine', () => {
  assert.deepStrictEqual(classifyEngagement(open({ userAgent: 'Mozilla/5.0' }), history), { machine: true, reason: 'apple-mail-privacy' });
});

test('an open from Apple\'s 17.0.0.0/8 is Apple\'s image proxy, on IPv4 and IPv4-mapped IPv6 alike', () => {
  for (const ip of ['17.58.101.4', '::ffff:17.58.101.4']) {
    assert.deepStrictEqual(classifyEngagement(open({ ip, userAgent: APPLE_MAIL }), history), { machine: true, reason: 'apple-mail-privacy' });
  }
});

test('a click from Apple\'s range with a browser user agent is a person', () => {
  assert.deepStrictEqual(classifyEngagement(click({ ip: '17.58.101.4' }), history), { machine: false });
});

test('a HEAD request is a machine', () => {
  assert.deepStrictEqual(classifyEngagement(click({ method: 'HEAD' }), history), { machine: true, reason: 'head-request' });
});

test('no user agent at all is a machine', () => {
  for (const userAgent of [undefined, '', '   ']) {
    assert.deepStrictEqual(classifyEngagement(click({ userAgent }), history), { machine: true, reason: 'no-user-agent' });
  }
});

test('security gateways and link checkers that name themselves are machines', () => {
  for (const userAgent of [
    'Mozilla/5.0 (compatible; Proofpoint URL Defense)',
    'Mimecast URL Protect',
    'Barracuda Sentinel (EE)',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) BingPreview/1.0b',
    'Microsoft Office Existence Discovery',
  ]) {
    assert.deepStrictEqual(classifyEngagement(click({ userAgent }), history), { machine: true, reason: 'security-scanner' }, userAgent);
  }
});

test('crawlers, link expanders and HTTP libraries are machines', () => {
  for (const userAgent of ['Googlebot/2.1 (+http://www.google.com/bot.html)', 'Slackbot-LinkExpanding 1.0', 'curl/8.5.0', 'python-requests/2.31.0', 'Go-http-client/1.1', 'facebookexternalhit/1.1']) {
    assert.deepStrictEqual(classifyEngagement(click({ userAgent }), history), { machine: true, reason: 'bot' }, userAgent);
  }
});

test('Gmail\'s image proxy is a real open, noted as proxied', () => {
  const userAgent = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
  assert.deepStrictEqual(classifyEngagement(open({ userAgent, ip: '66.249.84.1' }), history), { machine: false, proxy: 'google' });
});

test('Yahoo\'s image proxy is a real open, noted as proxied', () => {
  const userAgent = 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html';
  assert.deepStrictEqual(classifyEngagement(open({ userAgent }), history), { machine: false, proxy: 'yahoo' });
});

test('a click within a second of delivery is a machine; one second after is a person', () => {
  assert.deepStrictEqual(classifyEngagement(click({ at: DELIVERED + 999 }), history), { machine: true, reason: 'quick' });
  assert.deepStrictEqual(classifyEngagement(click({ at: DELIVERED + 1000 }), history), { machine: false });
});

test('an open within a second of delivery is a machine', () => {
  assert.deepStrictEqual(classifyEngagement(open({ at: DELIVERED + 400 }), history), { machine: true, reason: 'quick' });
});

test('an open or click before any delivery was recorded is a machine (a gateway scanning the message in transit)', () => {
  assert.deepStrictEqual(classifyEngagement(click(), { deliveredAt: undefined, clicks: [] }), { machine: true, reason: 'before-delivery' });
  assert.deepStrictEqual(classifyEngagement(open(), { deliveredAt: undefined, clicks: [] }), { machine: true, reason: 'before-delivery' });
});

test('a click on another link of the message within the same second is a machine', () => {
  const earlier = { deliveredAt: DELIVERED, clicks: [{ url: 'https://example.com/b', at: LATER - 300 }] };
  assert.deepStrictEqual(classifyEngagement(click(), earlier), { machine: true, reason: 'link-burst' });
});

test('clicking the same link twice within a second (a double click) is a person', () => {
  const earlier = { deliveredAt: DELIVERED, clicks: [{ url: 'https://example.com/a', at: LATER - 300 }] };
  assert.deepStrictEqual(classifyEngagement(click(), earlier), { machine: false });
});

test('clicks on two links more than a second apart are a person', () => {
  const earlier = { deliveredAt: DELIVERED, clicks: [{ url: 'https://example.com/b', at: LATER - 5000 }] };
  assert.deepStrictEqual(classifyEngagement(click(), earlier), { machine: false });
});
