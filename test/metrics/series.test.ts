// Every series herald exports, after known traffic through a running service (its
// loops turning on real time): each family declared is documented in docs/operations.md
// and the other way round, each herald family has samples, and the scrape passes
// `promtool check metrics` when promtool is installed (Debian's `prometheus` package;
// .ci/run installs it). The alert rules of deploy/prometheus pass `promtool check rules`
// and their unit tests (`promtool test rules`).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import getTLSOptions from 'smtp-server/lib/tls-options.js';
import type { Service } from '../../src/service.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';
import { startWebhookReceiver, subscribe } from '../peers/webhook-receiver.ts';
import { openAccount, post, smsBody, startService } from '../support/service.ts';
import { families, sample, scrape } from './scrape.ts';

const PROMTOOL = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'promtool')).find((path) => existsSync(path));
const NO_PROMTOOL = PROMTOOL === undefined ? 'promtool is not installed (Debian package `prometheus`): skipped' : false;
const PROMETHEUS_DIR = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));

/** The metric names the metrics table of docs/operations.md documents (its first column). */
function documentedSeries(): Set<string> {
  const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Metrics'), doc.indexOf('\n## ', doc.indexOf('## Metrics') + 1));
  const firstCells = section.split('\n').filter((line) => line.startsWith('| `herald_')).map((line) => line.split('|')[1] ?? '');
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`(herald_[a-z0-9_]+)`/g)].map((match) => match[1] ?? '')));
}

/** Waits (bounded) until the scrape satisfies `done`; the service's loops run on real time. */
async function scrapeUntil(service: Service, done: (body: string) => boolean): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await scrape(service.metrics);
    if (done(body) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A service with an inbound TLS certificate, a verified domain with a DKIM key, and traffic delivered, reported and posted. */
async function afterKnownTraffic(t: TestContext): Promise<{ body: string; certificateExpiry: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-metrics-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { key, cert } = getTLSOptions();
  writeFileSync(join(dir, 'key.pem'), String(key));
  writeFileSync(join(dir, 'cert.pem'), String(cert));
  const service = await startService(t, {
    worker: true,
    env: {
      HERALD_INBOUND_SMTP_PORT: '0', HERALD_INBOUND_SMTP_HOST: '127.0.0.1', HERALD_INBOUND_SMTP_TLS_KEY: join(dir, 'key.pem'),
      HERALD_INBOUND_SMTP_TLS_CERT: join(dir, 'cert.pem'), HERALD_SIMULATOR_STEP_MS: '20',
    },
  });
  const account = await openAccount(service);
  await insertSenderDomain(service.deps.db, {
    id: service.deps.newId(), accountId: account.id, domain: 'news.acme.org', verified: true, createdAt: Date.UTC(2026, 0, 9),
    dkim: { selector: 'herald202601', privateKey: 'unused', publicKey: 'unused' },
  });
  const receiver = await startWebhookReceiver(t);
  await subscribe(service, account.apiKey, receiver);
  // An SMS to the simulator's delivered number, and one refused (a number herald does not take).
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['+447700900100'] }))).statusCode, 200);
  assert.equal((await post(service, '/v1/sms/send', account.apiKey, smsBody({ mobile_numbers: ['12'] }))).statusCode, 400);
  const body = await scrapeUntil(service, (text) => sample(text, 'herald_webhook_delivery_seconds_count') === 2);
  return { body, certificateExpiry: Date.parse(new X509Certificate(String(cert)).validTo) / 1000 };
}

test('after known traffic every series is documented, every documented one exported, and every herald family has samples', async (t) => {
  const { body, certificateExpiry } = await afterKnownTraffic(t);
  const exported = families(body).filter((name) => name.startsWith('herald_'));
  assert.deepStrictEqual([...exported].sort(), [...documentedSeries()].sort());
  const empty = exported.filter((name) => !body.split('\n').some((line) => line.startsWith(name) && !line.startsWith('#')));
  assert.deepStrictEqual(empty, []);

  assert.equal(sample(body, 'herald_events_total{channel="sms",type="sms.sent"}'), 1);
  assert.equal(sample(body, 'herald_events_total{channel="sms",type="sms.delivered"}'), 1);
  assert.equal(sample(body, 'herald_accept_to_sent_seconds_count{channel="sms"}'), 1);
  assert.equal(sample(body, 'herald_accept_to_delivered_seconds_count{channel="sms"}'), 1);
  assert.equal(sample(body, 'herald_accept_duration_seconds_count{channel="sms",outcome="refused",status="400"}'), 1);
  assert.equal(sample(body, 'herald_tls_certificate_expiry_timestamp_seconds{listener="inbound-smtp"}'), certificateExpiry);
  assert.equal(sample(body, 'herald_dkim_key_oldest_created_timestamp_seconds'), Date.UTC(2026, 0, 1) / 1000);
  for (const loop of ['outbox-delivery', 'webhook-delivery', 'campaign', 'simulator-report']) {
    const age = sample(body, `herald_loop_last_turn_age_seconds{loop="${loop}"}`);
    assert.equal(age !== undefined && age >= 0 && age < 5, true, `${loop}: ${age}`);
  }
});

test('a scrape after known traffic passes promtool check metrics', { skip: NO_PROMTOOL }, async (t) => {
  const { body } = await afterKnownTraffic(t);
  const checked = spawnSync(PROMTOOL ?? 'promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
  assert.deepStrictEqual({ status: checked.status, stdout: checked.stdout, stderr: checked.stderr }, { status: 0, stdout: '', stderr: '' });
});

test('the alert rules pass promtool check rules and their unit tests', { skip: NO_PROMTOOL }, () => {
  const checked = spawnSync(PROMTOOL ?? 'promtool', ['check', 'rules', 'alerts.yml'], { cwd: PROMETHEUS_DIR, encoding: 'utf8' });
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  assert.match(checked.stdout, /SUCCESS: 12 rules found/);
  const tested = spawnSync(PROMTOOL ?? 'promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: PROMETHEUS_DIR, encoding: 'utf8' });
  assert.equal(tested.status, 0, tested.stdout + tested.stderr);
  assert.match(tested.stdout, /SUCCESS/);
});
