import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogFormat } from './config.ts';

// The process's logger: JSON lines for log storage (the default), or pino-pretty's
// readable single lines for a person at a terminal (HERALD_LOG_FORMAT=pretty).

/** Writes to stdout unless given a destination (tests read the lines). */
export function createLogger(options: { readonly level: string; readonly format: LogFormat }, destination?: DestinationStream): Logger {
  // Credentials (Authorization, session cookies, CSRF tokens) never reach the log, whoever logs a request.
  const settings = { level: options.level, redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]'] };
  if (options.format === 'json') return destination === undefined ? pino(settings) : pino(settings, destination);
  // In-process and synchronous: no worker thread, and nothing lost when the process exits at once.
  return pino(settings, pinoPretty({
    sync: true, translateTime: 'SYS:standard', ignore: 'pid,hostname', colorize: destination === undefined ? pinoPretty.isColorSupported : false,
    ...(destination === undefined ? {} : { destination }),
  }));
}

