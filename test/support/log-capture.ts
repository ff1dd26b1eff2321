import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A real pino logger whose lines are kept, parsed, for a test to read. */
export function captureLogs(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  }));
  return { logger, lines };
}
