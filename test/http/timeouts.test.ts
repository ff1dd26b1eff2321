// The HTTP server's time-outs, its answers to requests Node refuses and its refusals
// before a body is read, on a real listening socket: what a slow, busy or broken client
// gets, and that its socket is closed.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Service } from '../../src/service.ts';
import { openAccount, startService } from '../support/service.ts';

async function listening(t: TestContext, env: Record<string, string> = {}): Promise<{ service: Service; port: number }> {
  const service = await startService(t, { env });
  await service.http.listen({ port: 0, host: '127.0.0.1' });
  const address = service.http.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  return { service, port: address.port };
}

interface Conversation {
  readonly socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with the milliseconds from connecting to the server closing the connection. */
  readonly closed: Promise<number>;
}

function converse(t: TestContext, port: number): Promise<Conversation> {
  const socket = connect(port, '127.0.0.1');
  t.after(() => socket.destroy());
  const started = performance.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => { text += chunk; });
  // The server may reset the connection while the client still writes; that is a close
  // too (events.once would reject on the 'error' that comes before it).
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return once(socket, 'connect').then(() => ({ socket, received: () => text, closed }));
}

/** Writes one byte at a time, `intervalMs` apart, until the socket closes or `bytes` are sent. */
async function trickle(socket: Socket, bytes: number, intervalMs: number): Promise<number> {
  let sent = 0;
  while (sent < bytes && !socket.destroyed && socket.writable) {
    socket.write('a');
    sent += 1;
    await sleep(intervalMs);
  }
  return sent;
}

function statusAndBody(raw: string): { status: number; body: unknown } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

/** Writes `chunkBytes` every `intervalMs` until the socket stops being writable; resolves with the bytes sent. */
async function stream(socket: Socket, chunkBytes: number, intervalMs: number): Promise<number> {
  const chunk = 'a'.repeat(chunkBytes);
  let sent = 0;
  while (!socket.destroyed && socket.writable) {
    socket.write(chunk);
    sent += chunkBytes;
    await sleep(intervalMs);
  }
  return sent;
}

/**
 * A busy client that writes `head` and then a body of about 3 MB/s, reading nothing for
 * 1.5 s: what it has received once the connection closed. Had the server reset the
 * connection, the client's next write would fail and the unread answer be lost.
 */
async function busyClient(t: TestContext, port: number, head: string): Promise<{ received: string; closedAfterMs: number; sent: number }> {
  const conversation = await converse(t, port);
  conversation.socket.write(head);
  conversation.socket.pause();
  const sending = stream(conversation.socket, 16_384, 5);
  await sleep(1500);
  conversation.socket.resume();
  const closedAfterMs = await conversation.closed;
  return { received: conversation.received(), closedAfterMs, sent: await sending };
}

test('a request with a bad key declaring a 1 MB body is refused at once and its socket closed, its body never read', async (t) => {
  const { port } = await listening(t);
  const conversation = await converse(t, port);
  conversation.socket.write('POST /v1/email HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer not-a-key\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n');
  const sending = trickle(conversation.socket, 1_048_576, 1000);
  const closedAfterMs = await conversation.closed;
  const { status, body } = statusAndBody(conversation.received());
  assert.deepStrictEqual({ status, body }, { status: 403, body: { error: 'Invalid API Key ' } });
  // The request time-out is 120 s: only the refusal can have closed it this soon.
  assert.ok(closedAfterMs < 1000, `closed after ${Math.round(closedAfterMs)} ms`);
  assert.ok((await sending) <= 2);
});

test('an authenticated body that arrives too slowly is cut at the request time-out with 408', async (t) => {
  const { service, port } = await listening(t, { HERALD_HTTP_HEADERS_TIMEOUT_MS: '300', HERALD_HTTP_REQUEST_TIMEOUT_MS: '800' });
  const account = await openAccount(service);
  const conversation = await converse(t, port);
  conversation.socket.write(`POST /v1/email HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer ${account.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
  void trickle(conversation.socket, 1000, 50);
  const closedAfterMs = await conversation.closed;
  assert.deepStrictEqual(statusAndBody(conversation.received()), { status: 408, body: { message: 'Request timed out' } });
  assert.ok(closedAfterMs >= 750 && closedAfterMs < 3000, `closed after ${Math.round(closedAfterMs)} ms`);
});

test('a client still writing its body when the request time-out cuts it, and slow to read, still reads the 408', async (t) => {
  const { service, port } = await listening(t, { HERALD_HTTP_HEADERS_TIMEOUT_MS: '300', HERALD_HTTP_REQUEST_TIMEOUT_MS: '800' });
  const account = await openAccount(service);
  const { received, closedAfterMs, sent } = await busyClient(t, port,
    `POST /v1/email HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer ${account.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 9000000\r\n\r\n`);
  assert.deepStrictEqual(statusAndBody(received), { status: 408, body: { message: 'Request timed out' } });
  // The server lingers at most LINGER_MS (3 s) after the answer at 800 ms.
  assert.ok(closedAfterMs < 3800 + 1000, `closed after ${Math.round(closedAfterMs)} ms`);
  assert.ok(sent < 9_000_000);
});

test('an SMS send declaring a body over its 1 MiB limit is answered 413 at once, and a busy client still writing reads it', async (t) => {
  const { service, port } = await listening(t);
  const account = await openAccount(service);
  const { received, closedAfterMs, sent } = await busyClient(t, port,
    `POST /v1/sms/send HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer ${account.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 9000000\r\n\r\n`);
  assert.match(received, /^HTTP\/1\.1 413 Payload Too Large\r\n.*\r\nconnection: close\r\n/is);
  assert.deepStrictEqual(statusAndBody(received), { status: 413, body: { message: 'Request body is too large' } });
  // Answered from the declared length: the connection lingers at most 3 s after the answer.
  assert.ok(closedAfterMs < 3000 + 1500, `closed after ${Math.round(closedAfterMs)} ms`);
  assert.ok(sent < 9_000_000);
});

test('a bad key refused before its body is read reaches a busy client still writing', async (t) => {
  const { port } = await listening(t);
  const { received } = await busyClient(t, port,
    'POST /v1/sms/send HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer not-a-key\r\nContent-Type: application/json\r\nContent-Length: 9000000\r\n\r\n');
  assert.deepStrictEqual(statusAndBody(received), { status: 403, body: { error: 'Invalid API Key ' } });
});

test('headers that do not finish arriving are cut at the headers time-out with 408', async (t) => {
  const { port } = await listening(t, { HERALD_HTTP_HEADERS_TIMEOUT_MS: '300', HERALD_HTTP_REQUEST_TIMEOUT_MS: '60000' });
  const conversation = await converse(t, port);
  conversation.socket.write('GET /healthz HTTP/1.1\r\nHost: herald\r\n');
  const closedAfterMs = await conversation.closed;
  assert.deepStrictEqual(statusAndBody(conversation.received()), { status: 408, body: { message: 'Request timed out' } });
  assert.ok(closedAfterMs >= 250 && closedAfterMs < 2500, `closed after ${Math.round(closedAfterMs)} ms`);
});

test('an idle keep-alive connection is closed after the keep-alive time-out', async (t) => {
  const { port } = await listening(t, { HERALD_HTTP_KEEP_ALIVE_TIMEOUT_MS: '300' });
  const conversation = await converse(t, port);
  conversation.socket.write('GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n');
  const closedAfterMs = await conversation.closed;
  // Kept alive after the answer (the header says whole seconds: 300 ms rounds down to 0), then closed idle.
  assert.match(conversation.received(), /^HTTP\/1\.1 200 OK\r\n.*\r\nConnection: keep-alive\r\nKeep-Alive: timeout=0\r\n\r\n\{"status":"ok"\}$/s);
  assert.ok(closedAfterMs >= 250 && closedAfterMs < 2500, `closed after ${Math.round(closedAfterMs)} ms`);
});

test('headers larger than Node accepts are answered 431 in the interface style', async (t) => {
  const { port } = await listening(t);
  const conversation = await converse(t, port);
  conversation.socket.write(`GET /healthz HTTP/1.1\r\nHost: herald\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
  await conversation.closed;
  assert.deepStrictEqual(statusAndBody(conversation.received()), { status: 431, body: { message: 'Request header fields too large' } });
});

test('bytes that are not HTTP are answered 400 in the interface style', async (t) => {
  const { port } = await listening(t);
  const conversation = await converse(t, port);
  conversation.socket.write('HELLO THERE\r\n\r\n');
  await conversation.closed;
  assert.deepStrictEqual(statusAndBody(conversation.received()), { status: 400, body: { message: 'Invalid request, malformed HTTP' } });
});
