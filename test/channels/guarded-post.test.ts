// guardedPost, the webhook side of the private-address guard: a POST with a body over
// kept-alive sockets, against real http servers on 127.0.0.1.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedPost, keepAliveAgents, type KeepAliveAgents } from '../../src/channels/guarded-fetch.ts';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string }

async function serve(t: TestContext, answer: (request: IncomingMessage, response: ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(request, response);
    });
  });
  server.on('connection', () => { connections += 1; });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => { server.closeAllConnections(); server.close(); });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, connections: () => connections };
}

function agentsFor(t: TestContext, maxSockets: number): KeepAliveAgents {
  const agents = keepAliveAgents(maxSockets);
  t.after(() => agents.destroy());
  return agents;
}

const ok = (_request: IncomingMessage, response: ServerResponse): void => { response.writeHead(200).end('ok'); };
const base = { allowPrivate: true, timeoutMs: 2000, headers: { 'content-type': 'application/json' } } as const;

test('the body and the given headers arrive as sent, with content-length, and the status is the answer', async (t) => {
  const peer = await serve(t, (_request, response) => response.writeHead(202).end());
  const outcome = await guardedPost(`${peer.url}/hooks?x=1`, { ...base, body: '{"a":"é"}', headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1', host: 'evil.example' } });
  assert.deepStrictEqual(outcome, { answered: true, status: 202, excerpt: '' });
  const [request] = peer.seen;
  assert.deepStrictEqual([request?.method, request?.url, request?.body], ['POST', '/hooks?x=1', '{"a":"é"}']);
  assert.deepStrictEqual([request?.headers['content-length'], request?.headers['webhook-id'], request?.headers.host], ['10', 'evt_1', new URL(peer.url).host]);
});

test('posts to one receiver reuse one kept-alive connection', async (t) => {
  const peer = await serve(t, ok);
  const agents = agentsFor(t, 4);
  for (let i = 0; i < 20; i += 1) assert.equal((await guardedPost(peer.url, { ...base, body: `{"n":${i}}`, agents })) .answered, true);
  assert.deepStrictEqual([peer.seen.length, peer.connections()], [20, 1]);
});

test('concurrent posts to one receiver open no more connections than the per-origin cap', async (t) => {
  const peer = await serve(t, ok);
  const agents = agentsFor(t, 4);
  const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => guardedPost(peer.url, { ...base, body: `{"n":${i}}`, agents })));
  assert.ok(outcomes.every((o) => o.answered && o.status === 200));
  assert.equal(peer.seen.length, 40);
  assert.ok(peer.connections() <= 4, `${peer.connections()} connections`);
});

test('a loopback literal is refused before any connection unless private addresses are allowed', async (t) => {
  const peer = await serve(t, ok);
  const outcome = await guardedPost(peer.url, { ...base, allowPrivate: false, body: '{}' });
  assert.deepStrictEqual(outcome, { answered: false, reason: 'refused to post to 127.0.0.1: 127.0.0.1 is a private or reserved address', permanent: true });
  assert.equal(peer.connections(), 0);
});

test('a host name is checked when a connection is opened: one that resolves to a private address is refused', async (t) => {
  const peer = await serve(t, ok);
  const port = new URL(peer.url).port;
  const asked: string[] = [];
  const lookup = async (hostname: string) => {
    asked.push(hostname);
    return [{ address: '127.0.0.1', family: 4 as const }];
  };
  const outcome = await guardedPost(`http://hooks.test:${port}/`, { ...base, allowPrivate: false, body: '{}', lookup, agents: agentsFor(t, 4) });
  assert.deepStrictEqual(outcome, { answered: false, reason: 'refused to post to hooks.test: 127.0.0.1 is a private or reserved address', permanent: true });
  assert.deepStrictEqual([asked, peer.connections()], [['hooks.test'], 0]);
});

test('a redirect is an answer like any other: it is not followed', async (t) => {
  const peer = await serve(t, (_request, response) => response.writeHead(307, { location: '/elsewhere' }).end());
  const outcome = await guardedPost(peer.url, { ...base, body: '{}' });
  assert.deepStrictEqual(outcome, { answered: true, status: 307, excerpt: '' });
  assert.deepStrictEqual(peer.seen.map((s) => s.url), ['/']);
});

test('the start of an error answer is kept as its excerpt', async (t) => {
  const peer = await serve(t, (_request, response) => response.writeHead(503).end(`busy ${'x'.repeat(1000)}`));
  const outcome = await guardedPost(peer.url, { ...base, body: '{}', excerptBytes: 10 });
  assert.deepStrictEqual(outcome, { answered: true, status: 503, excerpt: 'busy xxxxx' });
});

test('an answer whose body never ends within the time-out still counts by its status', async (t) => {
  const peer = await serve(t, (_request, response) => { response.writeHead(200); response.write('partial'); });
  const outcome = await guardedPost(peer.url, { ...base, timeoutMs: 150, body: '{}' });
  assert.deepStrictEqual(outcome, { answered: true, status: 200, excerpt: 'partial' });
});

test('a receiver that never answers fails the post at the time-out', async (t) => {
  const peer = await serve(t, () => {});
  const started = performance.now();
  const outcome = await guardedPost(peer.url, { ...base, timeoutMs: 150, body: '{}', agents: agentsFor(t, 4) });
  assert.deepStrictEqual(outcome, { answered: false, reason: 'timed out after 150 ms', permanent: false });
  assert.ok(performance.now() - started < 1000);
});

test('a receiver that is not listening fails the post as a connection failure that may pass', async (t) => {
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as AddressInfo).port;
  closed.close();
  await once(closed, 'close');
  const outcome = await guardedPost(`http://127.0.0.1:${port}/`, { ...base, body: '{}' });
  assert.deepStrictEqual(outcome, { answered: false, reason: `connection to 127.0.0.1:${port} failed: ECONNREFUSED`, permanent: false });
});

test('waiting for a free socket of the pool does not count against the time-out', async (t) => {
  const peer = await serve(t, (_request, response) => { setTimeout(() => response.writeHead(200).end(), 100); });
  const agents = agentsFor(t, 1);
  // Three posts over one socket: the last waits ~200 ms for it, then gets its 100 ms answer within 150 ms.
  const outcomes = await Promise.all([0, 1, 2].map((i) => guardedPost(peer.url, { ...base, timeoutMs: 150, body: `{"n":${i}}`, agents })));
  assert.deepStrictEqual(outcomes.map((o) => o.answered && o.status), [200, 200, 200]);
  assert.equal(peer.connections(), 1);
});
