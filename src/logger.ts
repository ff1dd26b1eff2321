import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogFormat } from './config.ts';

// The process's logger: JSON lines for log storage (the default), or pino-pretty's
// readable single lines for a person at a terminal (HERALD_LOG_FORMAT=pretty).

/** Writes to stdout unless given a destination (tests read the lines). */
export function createLogger(options: { readonly level: string; readonly format: LogFormat }, destination?: DestinationStream): Logger {
  // Credentials (Authorization, session cookies, CSRF tokens) never reach the log, whoever logs a request.
  const settings = { level: options.level, redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]'] };
  if (options.format === 'json') {
    if (destination !== undefined) return pino(settings, destination);
    const stdout = stdoutByTheKilobyte();
    // An error goes out at once, with what was buffered before it: whoever watches the log for errors sees them by the time the answer is read.
    const logMethod: LogMethodHook = function (args, method, level) {
      method.apply(this, args);
      if (level >= ERROR_LEVEL) stdout.flush(() => {});
    };
    return pino({ ...settings, hooks: { logMethod } }, stdout);
  }
  // In-process and synchronous: no worker thread, and nothing lost when the process exits at once.
  return pino(settings, pinoPretty({
    sync: true, translateTime: 'SYS:standard', ignore: 'pid,hostname', colorize: destination === undefined ? pinoPretty.isColorSupported : false,
    ...(destination === undefined ? {} : { destination }),
  }));
}

/** How long a line may wait in the buffer before it is written (a quiet process). */
const LOG_FLUSH_MS = 100;

/**
 * stdout written a few kilobytes a time, not one write per line: pino's default stream
 * hands each line to the thread pool on its own (0.13 ms of the event loop per SMS at two
 * lines per SMS, sms-e2e --profile). A line waits at most LOG_FLUSH_MS; pino writes what is
 * left when the process exits (an uncaught exception included).
 */
function stdoutByTheKilobyte(): ReturnType<typeof pino.destination> {
  return pino.destination({ dest: 1, minLength: 4096, periodicFlush: LOG_FLUSH_MS });
}

type LogMethodHook = NonNullable<NonNullable<LoggerOptions['hooks']>['logMethod']>;
const ERROR_LEVEL = 50;
