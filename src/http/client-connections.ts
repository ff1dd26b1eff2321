import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { ClientErrorKind, Metrics } from '../metrics/registry.ts';
import { REQUEST_ID_HEADER } from './failed-request.ts';
import { isLingering, lingeringClose } from './lingering-close.ts';
import { wireError } from './wire-errors.ts';

// What the HTTP server does with a client's connection before any route sees a
// request: how long it waits for headers, for the whole request and on an idle
// keep-alive connection, and how it answers what Node's parser refuses. Without these
// a client that sends a declared 1 MB body at a byte a second holds its socket for as
// long as it likes.

export interface HttpTimeouts {
  /** Request line and headers must arrive within this (HERALD_HTTP_HEADERS_TIMEOUT_MS). */
  readonly headersMs: number;
  /** The whole request, headers and body, within this (HERALD_HTTP_REQUEST_TIMEOUT_MS). */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this (HERALD_HTTP_KEEP_ALIVE_TIMEOUT_MS). */
  readonly keepAliveMs: number;
}

/**
 * Fastify's server options for the time-outs. Node checks the headers and request
 * time-outs on a timer (30 s by default, so a 10 s limit could take 40 s); it runs here at
 * a tenth of the shorter limit, at most every second.
 */
export function timeoutOptions(timeouts: HttpTimeouts): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout'> & { http: object } {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeouts.headersMs / 10))),
    },
  };
}

const KIND_OF: Readonly<Record<string, ClientErrorKind>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'timeout',
  HPE_HEADER_OVERFLOW: 'header-overflow',
};

/**
 * Fastify's clientErrorHandler: a request Node gave up on (a time-out, headers too
 * large, bytes that are not HTTP) is answered in the interface's JSON style — `{message}`
 * with 408, 431 or 400 — and its connection closed with a lingering close, since the
 * client may still be writing (lingering-close.ts). When an answer has already begun on
 * the socket, nothing more can be said: it is only destroyed.
 */
export function clientErrorHandler(metrics: Metrics) {
  return function onClientError(error: Error & { code?: string }, socket: Socket): void {
    // A lingering socket's later errors (its unfinished request, the client's reset) are expected.
    if (error.code === 'ECONNRESET' || socket.destroyed || isLingering(socket)) return;
    const kind = KIND_OF[error.code ?? ''] ?? 'malformed';
    metrics.clientErrorObserved(kind);
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (socket.writable && !answering) {
      const { status, body } = wireError({ code: kind === 'timeout' ? 'requestTimedOut' : kind === 'header-overflow' ? 'headersTooLarge' : 'malformedRequest' });
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n` +
          `${REQUEST_ID_HEADER}: ${randomUUID()}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${text}`,
      );
      lingeringClose(socket);
      return;
    }
    socket.destroy();
  };
}
