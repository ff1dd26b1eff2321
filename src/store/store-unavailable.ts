// Whether an error means the store did not answer (a fault of no caller's making, to
// be answered 503 and tried again), as opposed to a statement the store refused (a bug,
// or a constraint a use case decides on). The one place that knows what each engine's
// driver throws when its server or file is out of reach.

/** Socket errors of a connection that could not be made or was lost (node:net, DNS). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * PostgreSQL SQLSTATEs of a server that is going away or not taking connections:
 * class 08 (connection exception), admin_shutdown, crash_shutdown, cannot_connect_now
 * (starting or stopping), too_many_connections.
 */
const POSTGRES_UNAVAILABLE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** What pg and pg-pool throw without a code when a connection ends or cannot be had in time. */
const POSTGRES_CLIENT_TEXTS = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

// node:sqlite's primary result codes: SQLITE_BUSY (another connection holds the lock past
// the busy timeout) and SQLITE_LOCKED. Extended codes carry the primary in the low byte.
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/** Causes and aggregated errors are followed this deep (a cycle must not loop). */
const MAX_DEPTH = 4;

/** True when `error` (or what caused it) says the database could not be reached or did not answer in time. */
export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > MAX_DEPTH) return false;
  const { code, errcode, message, cause, errors } = error as { code?: unknown; errcode?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code))) return true;
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && [SQLITE_BUSY, SQLITE_LOCKED].includes(errcode & 0xff)) return true;
  if (typeof message === 'string' && POSTGRES_CLIENT_TEXTS.some((text) => message.startsWith(text))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isStoreUnavailable(inner, depth + 1))) return true;
  return isStoreUnavailable(cause, depth + 1);
}
