// The headers of every answer (http/security-headers.ts): nosniff everywhere, HSTS
// when the public URL is https, and a CSP with frame-ancestors on every HTML answer:
// the API reference (/docs), the web application (/app), herald's own pages. The
// policies are written out here as the review decided them, not read from the module.
import { connect } from 'node:net';
import { once } from 'node:events';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Service } from '../../src/service.ts';
import { launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { get, openAccount, startService } from '../support/service.ts';

const DOCS = "default-src 'none'; script-src 'self'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const APP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** herald's recipient pages: their one style element by its hash. */
const PAGE = "default-src 'none'; style-src 'sha256-L2nfXreNxx2xHHvsDQpGTHw0XQ2ke6DcRYT4dYqtuvY='; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const HSTS = 'max-age=31536000';

/** Every kind of answer: the reference page and its files, the document, the application, JSON, an error, a 404, a recipient page. */
async function answers(service: Service): Promise<Record<string, LightMyRequestResponse>> {
  const account = await openAccount(service);
  const inject = (url: string) => service.http.inject({ method: 'GET', url });
  return {
    docs: await inject('/docs'),
    docsRedirect: await inject('/docs/static/index.html'),
    docsStatic: await inject('/docs/static/swagger-ui.css'),
    openapi: await inject('/openapi.json'),
    app: await inject('/app/'),
    json: await get(service, '/v1/account', account.apiKey),
    error: await get(service, '/v1/account', 'not-a-key'),
    notFound: await inject('/nowhere'),
    page: await inject('/confirm/not-a-token'),
    health: await inject('/healthz'),
  };
}

const headersOf = (res: LightMyRequestResponse) => ({
  nosniff: res.headers['x-content-type-options'], hsts: res.headers['strict-transport-security'], csp: res.headers['content-security-policy'],
});

async function started(t: TestContext, publicUrl: string): Promise<Record<string, LightMyRequestResponse>> {
  return answers(await startService(t, { env: { HERALD_PUBLIC_URL: publicUrl } }));
}

test('every kind of answer carries nosniff, HTML answers a CSP that forbids framing, and no HSTS on an http public URL', async (t) => {
  const all = await started(t, 'http://localhost:8080');
  assert.deepStrictEqual(Object.fromEntries(Object.entries(all).map(([name, res]) => [name, [res.statusCode, headersOf(res)]])), {
    docs: [200, { nosniff: 'nosniff', hsts: undefined, csp: DOCS }],
    docsRedirect: [302, { nosniff: 'nosniff', hsts: undefined, csp: DOCS }],
    docsStatic: [200, { nosniff: 'nosniff', hsts: undefined, csp: DOCS }],
    openapi: [200, { nosniff: 'nosniff', hsts: undefined, csp: undefined }],
    app: [200, { nosniff: 'nosniff', hsts: undefined, csp: APP }],
    json: [200, { nosniff: 'nosniff', hsts: undefined, csp: undefined }],
    error: [403, { nosniff: 'nosniff', hsts: undefined, csp: undefined }],
    notFound: [404, { nosniff: 'nosniff', hsts: undefined, csp: undefined }],
    page: [404, { nosniff: 'nosniff', hsts: undefined, csp: PAGE }],
    health: [200, { nosniff: 'nosniff', hsts: undefined, csp: undefined }],
  });
});

test('with an https public URL every answer carries Strict-Transport-Security for a year', async (t) => {
  const all = await started(t, 'https://herald.example.com');
  assert.deepStrictEqual(Object.fromEntries(Object.entries(all).map(([name, res]) => [name, res.headers['strict-transport-security']])), {
    docs: HSTS, docsRedirect: HSTS, docsStatic: HSTS, openapi: HSTS, app: HSTS, json: HSTS, error: HSTS, notFound: HSTS, page: HSTS, health: HSTS,
  });
});

test('the answer to bytes that are not HTTP, written before any route, carries nosniff too', async (t) => {
  const service = await startService(t);
  await service.http.listen({ port: 0, host: '127.0.0.1' });
  const address = service.http.server.address();
  assert.ok(address !== null && typeof address === 'object');
  const socket = connect(address.port, '127.0.0.1');
  t.after(() => socket.destroy());
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  socket.write('HELLO THERE\r\n\r\n');
  await once(socket, 'close');
  const head = received.split('\r\n\r\n')[0] ?? '';
  assert.deepStrictEqual([head.split(' ')[1], /^x-content-type-options: nosniff$/im.test(head)], ['400', true]);
});

/** A herald listening on loopback and a Chromium page of it that reports CSP violations and script errors. */
async function browserPage(t: TestContext) {
  const service = await startService(t, { env: { HERALD_PUBLIC_URL: 'http://127.0.0.1' } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  return { page: await (await openContext(browser, base, problems)).newPage(), problems };
}

test('the API reference loads in Chromium under its CSP: no violation, no error, every group of operations shown, a group opening on click', { skip: skipWithoutChromium }, async (t) => {
  const { page, problems } = await browserPage(t);
  const document = (await (await page.request.get('/docs/json')).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
  const tags = new Set(operations.flatMap((op) => op.tags ?? []));
  await page.goto('/docs', { waitUntil: 'load' });
  await page.locator('.opblock-tag').first().waitFor({ timeout: 30_000 });
  assert.equal(await page.title(), 'herald API');
  assert.equal(await page.locator('.opblock-tag').count(), tags.size);
  await page.locator('#operations-tag-campaigns').click();
  const campaigns = page.locator('.opblock-tag-section').filter({ has: page.locator('#operations-tag-campaigns') }).locator('.opblock');
  await campaigns.first().waitFor();
  assert.equal(await campaigns.count(), operations.filter((op) => op.tags?.includes('campaigns')).length);
  assert.deepStrictEqual(problems.errors, []);
});

test('a recipient page shows in Chromium with its style applied and no CSP violation', { skip: skipWithoutChromium }, async (t) => {
  const { page, problems } = await browserPage(t);
  await page.goto('/confirm/not-a-token', { waitUntil: 'load' });
  assert.equal(await page.evaluate('getComputedStyle(document.body).maxWidth'), '512px');
  assert.deepStrictEqual(problems.errors, []);
});
