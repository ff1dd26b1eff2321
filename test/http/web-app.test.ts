// /app: the built web application served by herald itself, with its client routes,
// caching and security headers; `GET /` leads there; a role without the API has none of it.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createRoleService } from '../../src/service.ts';
import { ADMIN_TOKEN, startService } from '../support/service.ts';

const INDEX = '<!doctype html><html lang="en"><head><title>herald</title><script type="module" src="/app/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** A web/dist of the test's own: index.html, one hashed script, the icon. */
function builtApp(t: TestContext): string {
  const root = mkdtempSync(join(tmpdir(), 'herald-web-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), INDEX);
  writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log("herald");\n');
  writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return root;
}

function securityHeaders(headers: Record<string, unknown>) {
  return {
    csp: headers['content-security-policy'], nosniff: headers['x-content-type-options'], referrer: headers['referrer-policy'],
    frame: headers['x-frame-options'], opener: headers['cross-origin-opener-policy'],
  };
}
const SECURITY = { csp: CSP, nosniff: 'nosniff', referrer: 'no-referrer', frame: 'DENY', opener: 'same-origin' };

test('GET / and GET /app redirect to /app/', async (t) => {
  const service = await startService(t, { webRoot: builtApp(t) });
  for (const url of ['/', '/app']) {
    const response = await service.http.inject({ method: 'GET', url });
    assert.deepStrictEqual({ status: response.statusCode, location: response.headers.location }, { status: 302, location: '/app/' });
  }
});

test('/app/ answers index.html, revalidated every time, under the application CSP', async (t) => {
  const service = await startService(t, { webRoot: builtApp(t) });
  const response = await service.http.inject({ method: 'GET', url: '/app/' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(response.headers['cache-control'], 'no-cache');
  assert.deepStrictEqual(securityHeaders(response.headers), SECURITY);
  assert.equal(response.body, INDEX);
});

test('a client route such as /app/messages/<id> answers index.html for the router in the page', async (t) => {
  const service = await startService(t, { webRoot: builtApp(t) });
  for (const url of ['/app/messages/0196f1a2-0000-7000-8000-000000000000', '/app/operator/accounts/x', '/app/sign-in?next=%2Fmessages']) {
    const response = await service.http.inject({ method: 'GET', url });
    assert.deepStrictEqual({ status: response.statusCode, body: response.body, cache: response.headers['cache-control'] }, { status: 200, body: INDEX, cache: 'no-cache' }, url);
    assert.deepStrictEqual(securityHeaders(response.headers), SECURITY);
  }
});

test('a hashed asset is cached for a year as immutable', async (t) => {
  const service = await startService(t, { webRoot: builtApp(t) });
  const response = await service.http.inject({ method: 'GET', url: '/app/assets/index-abc123.js' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'application/javascript; charset=utf-8');
  assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.body, 'console.log("herald");\n');
});

test('a missing asset is a 404, not the page', async (t) => {
  const service = await startService(t, { webRoot: builtApp(t) });
  const response = await service.http.inject({ method: 'GET', url: '/app/assets/index-gone99.js' });
  assert.deepStrictEqual({ status: response.statusCode, body: response.json() }, { status: 404, body: { message: 'Not found' } });
});

test('a file of web/public is served for an hour', async (t) => {
  const service = await startService(t, { webRoot: builtApp(t) });
  const response = await service.http.inject({ method: 'GET', url: '/app/favicon.svg' });
  assert.deepStrictEqual(
    { status: response.statusCode, type: response.headers['content-type'], cache: response.headers['cache-control'], body: response.body },
    { status: 200, type: 'image/svg+xml', cache: 'public, max-age=3600', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
  );
});

test('a path that climbs out of the application reaches no file outside it', async (t) => {
  const root = builtApp(t);
  const outside = `${root}-secret.txt`;
  writeFileSync(outside, 'secret');
  t.after(() => rmSync(outside, { force: true }));
  const service = await startService(t, { webRoot: root });
  const name = outside.split('/').at(-1) ?? '';
  const page = await service.http.inject({ method: 'GET', url: `/app/..%2f${name}` });
  assert.deepStrictEqual({ status: page.statusCode, body: page.body }, { status: 200, body: INDEX }, 'not a file name: a client route');
  const asset = await service.http.inject({ method: 'GET', url: `/app/assets/..%2f..%2f${name}` });
  assert.deepStrictEqual({ status: asset.statusCode, body: asset.json() }, { status: 404, body: { message: 'Not found' } });
});

test('without a build, /app says how to build it with a 503', async (t) => {
  const service = await startService(t, { webRoot: join(tmpdir(), 'herald-no-such-build') });
  const response = await service.http.inject({ method: 'GET', url: '/app/messages' });
  assert.equal(response.statusCode, 503);
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.deepStrictEqual(securityHeaders(response.headers), SECURITY);
  assert.match(response.body, /<h1>The web application is not built<\/h1><p>Run <code>npm run build:web<\/code> \(npm ci does it\), then start herald again\.<\/p>/);
});

test('the application built by npm ci is served: its index names scripts that load', async (t) => {
  const service = await startService(t);
  const page = await service.http.inject({ method: 'GET', url: '/app/' });
  assert.equal(page.statusCode, 200, 'web/dist exists: npm ci builds it (the prepare script)');
  const scripts = [...page.body.matchAll(/<script type="module" crossorigin src="([^"]+)"><\/script>/g)].map((m) => m[1] ?? '');
  assert.equal(scripts.length, 1);
  assert.doesNotMatch(page.body, /<script>|<style>|\sstyle="/, 'no inline script or style: the CSP would refuse it');
  const script = await service.http.inject({ method: 'GET', url: scripts[0] ?? '' });
  assert.deepStrictEqual({ status: script.statusCode, cache: script.headers['cache-control'] }, { status: 200, cache: 'public, max-age=31536000, immutable' });
});

test('a worker process serves no /app', async (t) => {
  const service = await createRoleService(loadConfig({ HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_ADMIN_TOKEN: ADMIN_TOKEN }), { role: 'worker', logger: false, worker: false, webRoot: builtApp(t) });
  t.after(() => service.close());
  const response = await service.http.inject({ method: 'GET', url: '/app/' });
  assert.equal(response.statusCode, 404);
});
