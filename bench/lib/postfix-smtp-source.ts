import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { Budget } from './common.ts';
import { treeCpuSeconds } from './proc-stats.ts';
import type { SinkArrivals } from './sink-arrivals.ts';

// Postfix fed by its own load generator, smtp-source (Debian's postfix package):
// keep-alive sessions (-d), messages of the benchmark's size, each to a recipient of its
// own (-N). email-e2e feeds the measured Postfix round this way at its relay concurrency
// (a nodemailer pool, even with its messages composed beforehand, held Postfix 23–27 %
// below what smtp-source got from it), and the peer check's reference with more
// sessions: were the measured round short of sessions, the reference would show it.

export const SMTP_SOURCE = '/usr/sbin/smtp-source';
/** The measured round's parallel sessions: Postfix's relay concurrency (default_destination_concurrency_limit). */
export const POSTFIX_SESSIONS = 20;
/** The reference's: two and a half times as many. */
export const REFERENCE_SESSIONS = 50;
/** Messages sent before the clock starts: Postfix starts its smtpd and cleanup processes on demand. */
const WARMUP = 200;

export interface SmtpSourceRound {
  readonly rate: number;
  readonly ms: number;
  readonly count: number;
  readonly sessions: number;
  readonly bodyBytes: number;
  /** CPU (user + system) of every Postfix process per message. */
  readonly cpuMsPerMessage: number;
  readonly command: string;
}

export interface SmtpSourceRoundOptions {
  /** The Postfix under test: its smtpd port and the pid of `postfix start-fg`. */
  readonly relay: { readonly port: number; readonly pid: number };
  /** Where that Postfix relays example.org, counted since the last take. */
  readonly arrivals: SinkArrivals;
  readonly budget: Budget;
  readonly count: number;
  /** Body length of each message (smtp-source adds a few headers). */
  readonly bodyBytes: number;
  /** Parallel sessions (default REFERENCE_SESSIONS). */
  readonly sessions?: number;
  /** What the round is, in the progress and error lines (default: the Postfix reference). */
  readonly what?: string;
}

/** Why the reference cannot run here, or undefined. */
export const smtpSourceMissing = (): string | undefined => (existsSync(SMTP_SOURCE) ? undefined : `${SMTP_SOURCE} is missing (Debian's postfix package installs it)`);

export async function smtpSourceRound(options: SmtpSourceRoundOptions): Promise<SmtpSourceRound> {
  const { relay, arrivals, budget, count, bodyBytes, sessions = REFERENCE_SESSIONS, what = 'the Postfix reference' } = options;
  const args = (messages: number): string[] => [
    '-d', '-N', '-s', String(sessions), '-m', String(messages), '-l', String(bodyBytes),
    '-M', 'reference.bench.test', '-f', 'reference@example.com', '-t', 'reference@example.org', `127.0.0.1:${relay.port}`,
  ];
  const send = async (messages: number, what: string): Promise<{ ms: number; cpuSeconds: number }> => {
    const cpuBefore = treeCpuSeconds(relay.pid);
    const started = performance.now();
    const source = spawn(SMTP_SOURCE, args(messages), { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    source.stderr.setEncoding('utf8').on('data', (text: string) => (errors += text));
    // smtp-source failing (refused, timed out) ends the wait at once, not at the budget's end.
    const exited = once(source, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const failed = exited.then(([code, signal]) => {
      if (code === 0) return new Promise<never>(() => {});
      throw new Error(`${what}: smtp-source exited with ${code ?? signal}: ${errors.trim()}`);
    });
    const ended = await Promise.race([arrivals.received(messages, what), failed]).catch((error: unknown) => {
      if (source.exitCode === null) source.kill();
      throw error;
    });
    await budget.within(exited, () => `${what}: smtp-source exiting`);
    const cpu = treeCpuSeconds(relay.pid) - cpuBefore;
    arrivals.take();
    return { ms: ended - started, cpuSeconds: cpu };
  };
  await send(Math.min(WARMUP, count), `warming up ${what} (smtp-source)`);
  const measured = await send(count, `${what} (smtp-source)`);
  return {
    rate: count / (measured.ms / 1000), ms: measured.ms, count, sessions, bodyBytes,
    cpuMsPerMessage: (measured.cpuSeconds * 1000) / count, command: `smtp-source ${args(count).join(' ')}`,
  };
}
