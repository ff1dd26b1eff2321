import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

// Closing a connection whose client is still sending (a 408 mid-body, a 413 answered
// from the declared length) without losing the answer. Destroying the socket while
// unread request bytes sit in its receive buffer makes the kernel send RST instead of
// FIN, and the client's stack then drops whatever of the answer its application has
// not read yet: the client sees ECONNRESET and no status. So, as Apache and nginx do:
// send the answer, half-close (FIN after it), keep reading and discarding what the
// client still sends until it closes its side, and destroy the socket after a bound.

/** Longest a connection lingers after its answer, whatever the client does. */
export const LINGER_MS = 3_000;
/**
 * Most request bytes read and discarded while lingering. Past it the socket stops
 * reading (the client's writes stall, it can still read the answer) until the client
 * closes or LINGER_MS ends, so a client writing a huge body costs no more work than this.
 */
export const LINGER_MAX_BYTES = 1024 * 1024;

export interface LingerBounds {
  readonly ms: number;
  readonly maxBytes: number;
}

const lingering = new WeakSet<Socket>();

/** True once lingeringClose has taken the socket: nothing more is to be written on it. */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}

// Node's HTTP server socket while its parser is attached (lib/_http_server.js).
interface ServerSocket extends Socket {
  parser?: unknown;
  _paused?: boolean;
}

/**
 * Ends the socket once what is written on it is sent, discards what the client still
 * sends, and destroys it when the client closes or the bounds run out. Node's HTTP
 * parser is detached first: it would otherwise parse the rest of the body (or a next
 * pipelined request) and report its end of input as a client error.
 */
export function lingeringClose(socket: Socket, bounds: LingerBounds = { ms: LINGER_MS, maxBytes: LINGER_MAX_BYTES }): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  const server = socket as ServerSocket;
  // The parser's listeners: 'data' feeds it when it does not consume the handle itself,
  // 'end' asks it to finish (an unfinished body is an error there).
  socket.removeAllListeners('data');
  socket.removeAllListeners('end');
  let discarded = 0;
  // Adding a 'data' listener is how Node's own server detaches its parser from the
  // socket's handle (unconsume), after which the bytes arrive here instead.
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded >= bounds.maxBytes) socket.pause();
  });
  socket.on('end', () => socket.destroy());
  // Errors (the client's reset) end the socket on their own; nothing is left to say.
  socket.on('error', () => {});
  const limit = setTimeout(() => socket.destroy(), bounds.ms);
  socket.once('close', () => clearTimeout(limit));
  server._paused = false;
  socket.resume();
  socket.end();
}

/**
 * Makes every answer that closes its connection before the request's body is all read
 * (a refusal from the headers alone, 401/403/429, or a 413 from the declared length)
 * close it lingering. Node closes such a connection with `socket.destroySoon()` once the
 * answer is written (lib/_http_server.js, resOnFinish): this socket's own destroySoon
 * lingers instead.
 */
export function lingerWhenClosingEarly(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const socket = request.raw.socket as Socket | null;
    if (socket !== null && !request.raw.complete && /\bclose\b/i.test(String(reply.getHeader('connection') ?? ''))) {
      socket.destroySoon = () => lingeringClose(socket);
    }
    done(null, payload);
  });
}
