// The service's log kept in memory, so a test can fail on what the service logged,
// not only on what it answered: an exception a route swallowed into a 4xx is still a bug.
import assert from 'node:assert/strict';
import pino, { type Logger } from 'pino';
import type { Service } from '../../src/service.ts';

export interface LogLine {
  readonly level: number;
  readonly msg?: string;
  readonly reqId?: string;
  readonly requestId?: string;
  readonly err?: { readonly type?: string; readonly message?: string; readonly stack?: string };
  readonly [field: string]: unknown;
}

export interface CapturedLog {
  /** A pino logger for startService's `logger` option. */
  readonly logger: Logger;
  readonly lines: readonly LogLine[];
  /** Lines at error (50) or fatal (60). */
  errors(): LogLine[];
}

export const ERROR_LEVEL = 50;

export function captureLog(level: pino.LevelWithSilent = 'info'): CapturedLog {
  const lines: LogLine[] = [];
  const logger = pino({ level }, { write: (chunk: string) => void lines.push(JSON.parse(chunk) as LogLine) });
  return { logger, lines, errors: () => lines.filter((line) => line.level >= ERROR_LEVEL) };
}

/** One line per error logged: what a failure message shows. */
export function describeErrors(errors: readonly LogLine[]): string {
  return errors.map((line) => `${line.msg ?? ''}: ${line.err?.stack ?? line.err?.message ?? JSON.stringify(line)}`).join('\n');
}

/** Fails when the service logged at error or above since `from` (an index into lines). */
export function assertNoErrorLogged(log: CapturedLog, context: string, from = 0): void {
  const errors = log.lines.slice(from).filter((line) => line.level >= ERROR_LEVEL);
  assert.equal(errors.length, 0, `${context}: the service logged ${errors.length} error(s):\n${describeErrors(errors)}`);
}

/** herald_unexpected_errors_total{source="request"} as the service's metrics show it now (0 before the first). */
export async function unexpectedRequestErrors(service: Pick<Service, 'metrics'>): Promise<number> {
  const line = (await service.metrics.scrape()).split('\n').find((l) => l.startsWith('herald_unexpected_errors_total{source="request"} '));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}
