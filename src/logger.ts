import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogFormat } from './config.ts';

// The process's logger: JSON lines for log storage (the default), or pino-pretty's
// readable single lines for a person at a terminal (HERALD_LOG_FORMAT=pretty).

/** Writes to stdout unless given a destination (tests read the lines). */
export function createLogger(options: { readonly level: string; readonly format: LogFormat }, destination?: DestinationStream): Logger {
  // Credentials (Authorization, session cookies, CSRF tokens) never reach the log, whoever logs a request.
  const settings = { level: options.level, redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]'] };
  if (options.format === 'json') return pino(settings, destination ?? bufferedStdout());
  // In-process and synchronous: no worker thread, and nothing lost when the process exits at once.
  return pino(settings, pinoPretty({
    sync: true, translateTime: 'SYS:standard', ignore: 'pid,hostname', colorize: destination === undefined ? pinoPretty.isColorSupported : false,
    ...(destination === undefined ? {} : { destination }),
  }));
}

/** Longest a log line waits in the buffer of bufferedStdout. */
export const LOG_FLUSH_MS = 250;

/**
 * stdout written 8 KiB at a time (and whatever is there every LOG_FLUSH_MS), synchronously:
 * a write(2) per line cost ~0.05 ms per request under load (measured, bench accept
 * --profile), as much as the request's JSON handling, and handing each write to the
 * thread pool cost more still on this 2-core machine (a wake-up of a pool thread per
 * write). What is buffered is written when the process exits; a SIGKILL can lose the
 * last quarter second of lines.
 */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: true, minLength: 8192, periodicFlush: LOG_FLUSH_MS });
  process.once('exit', () => stream.flushSync());
  return stream;
}
