// The lingering close on a real loopback connection: the answer reaches a client that
// is still writing, the socket ends when the client closes, and the bounds hold.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { lingeringClose, type LingerBounds } from '../../src/http/lingering-close.ts';

const ANSWER = 'HTTP/1.1 413 Payload Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n';

/** A server that answers each connection's first bytes and closes it lingering; resolves with the server side's socket and when it closed. */
async function lingeringServer(t: TestContext, bounds: LingerBounds): Promise<{ port: number; closed: Promise<{ socket: Socket; afterMs: number }> }> {
  let closedOnServer!: (value: { socket: Socket; afterMs: number }) => void;
  const closed = new Promise<{ socket: Socket; afterMs: number }>((resolve) => { closedOnServer = resolve; });
  const server = createServer((socket) => {
    socket.once('data', () => {
      const answered = performance.now();
      socket.write(ANSWER);
      lingeringClose(socket, bounds);
      socket.once('close', () => closedOnServer({ socket, afterMs: performance.now() - answered }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  return { port: address.port, closed };
}

async function client(t: TestContext, port: number): Promise<{ socket: Socket; received: () => string }> {
  // Half-open: the client keeps writing after the server's FIN, as a client that does not watch for it would.
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  t.after(() => socket.destroy());
  socket.on('error', () => {});
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => { text += chunk; });
  await once(socket, 'connect');
  return { socket, received: () => text };
}

test('the server side closes as soon as the client closes its side', async (t) => {
  const { port, closed } = await lingeringServer(t, { ms: 10_000, maxBytes: 1024 * 1024 });
  const { socket, received } = await client(t, port);
  socket.write('POST / HTTP/1.1\r\n');
  await once(socket, 'end');
  assert.equal(received(), ANSWER);
  socket.end();
  assert.ok((await closed).afterMs < 1000);
});

test('a client that keeps writing is cut at the time bound, having read the answer', async (t) => {
  const { port, closed } = await lingeringServer(t, { ms: 400, maxBytes: 1024 * 1024 * 1024 });
  const { socket, received } = await client(t, port);
  let serverClosed = false;
  void closed.then(() => { serverClosed = true; });
  socket.write('POST / HTTP/1.1\r\n');
  while (!serverClosed && !socket.destroyed) {
    socket.write('a'.repeat(1024));
    await sleep(10);
  }
  const { afterMs } = await closed;
  assert.equal(received(), ANSWER);
  assert.ok(afterMs >= 350 && afterMs < 1500, `closed after ${Math.round(afterMs)} ms`);
});

test('past the byte bound the server reads no more', async (t) => {
  const { port, closed } = await lingeringServer(t, { ms: 800, maxBytes: 64 * 1024 });
  const { socket } = await client(t, port);
  socket.write('POST / HTTP/1.1\r\n');
  await once(socket, 'data');
  // 32 MiB, far beyond what the loopback's buffers hold: most of it never leaves the client.
  socket.write(Buffer.alloc(32 * 1024 * 1024));
  const { socket: serverSide } = await closed;
  assert.ok(serverSide.bytesRead < 16 * 1024 * 1024, `read ${serverSide.bytesRead} bytes`);
});
