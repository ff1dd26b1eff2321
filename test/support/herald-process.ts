// herald as the operator runs it: `node src/main.ts serve --role <role>` in a child
// process of its own, on HERALD_PORT=0, its address read from its log. For the tests of
// several processes sharing one PostgreSQL and one Redis (test/e2e/multi-process*.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Role } from '../../src/domain/process-role.ts';

const root = new URL('../../', import.meta.url).pathname;
/** Output kept per process for failure messages: the end of its log. */
const TAIL_CHARS = 16_384;
const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;

export interface HeraldProcess {
  readonly role: Role;
  readonly pid: number;
  /** `http://127.0.0.1:<port>`: the API, or only /healthz and /readyz for a worker. */
  readonly url: string;
  /** Set when the process ended; `expected` when the test ended it. */
  readonly exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly expected: boolean } | undefined;
  /** The end of what it wrote to stdout and stderr. */
  output(): string;
  /** Every log line at error or fatal, and every line on stderr (the log goes to stdout), since it started. */
  errorLines(): readonly string[];
  /** Sends a signal that does not end it (SIGSTOP, SIGCONT). */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** Sends `signal` (SIGKILL by default) and resolves when the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

// Children must not outlive the test process, whatever ends it (a failed assertion, a
// time-out, an uncaught error, a signal): the exit handler runs synchronously, and
// kill() is. A signal ends a process without 'exit', so it is caught, passed on to the
// children, and raised again for its usual effect when nobody else handles it.
const running = new Set<ChildProcess>();
const killRunning = (): void => {
  for (const child of running) child.kill('SIGKILL');
};
process.on('exit', killRunning);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killRunning();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

/** The test process's environment without any HERALD_* setting, so a child sees only the ones given. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('HERALD_')));
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

/** How the child is started: `node src/main.ts`, or deploy/herald as `npm start` runs it (with deploy/node-flags). */
export type Launch = 'node' | 'deploy-script';

const ERROR_LEVEL = 50;
/** A pino JSON line at error or above. */
function isErrorLine(line: string): boolean {
  try {
    const level: unknown = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === 'number' && level >= ERROR_LEVEL;
  } catch {
    return false;
  }
}

/**
 * Starts `serve --role role` with `env` (plus HERALD_PORT=0, HERALD_HOST=127.0.0.1,
 * HERALD_LOG_LEVEL=info: the listening line is an info line) and resolves once its
 * /readyz answers 200. The log is read for as long as the process runs (a full pipe
 * would stall it); its end is kept for failure messages. `flags` follow the role (`--paused`).
 */
export async function startHerald(
  role: Role, env: Readonly<Record<string, string>>, timeoutMs = 60_000, launch: Launch = 'node', flags: readonly string[] = [],
): Promise<HeraldProcess> {
  const [command, args] = launch === 'node' ? [process.execPath, ['src/main.ts']] : ['sh', ['deploy/herald']];
  const child = spawn(command, [...args, 'serve', '--role', role, ...flags], {
    cwd: root,
    env: { ...cleanEnv(), HERALD_PORT: '0', HERALD_HOST: '127.0.0.1', HERALD_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let tail = '';
  const errors: string[] = [];
  let expected = false;
  let exit: HeraldProcess['exit'];
  const exited = once(child, 'exit').then(([code, signal]) => {
    running.delete(child);
    exit = { code: code as number | null, signal: signal as NodeJS.Signals | null, expected };
  });
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    if (exit !== undefined) return;
    expected = true;
    child.kill(signal);
    await exited;
  };

  let url: string | undefined;
  const listening = new Promise<string>((resolve) => {
    const keep = (chunk: string): void => {
      tail = (tail + chunk).slice(-TAIL_CHARS);
      if (url === undefined) {
        const found = LISTENING.exec(tail)?.[1];
        if (found !== undefined) resolve((url = found));
      }
    };
    // Whole lines, for errorLines(): a chunk may end mid-line.
    const lines = (stream: 'stdout' | 'stderr') => {
      let partial = '';
      return (chunk: string): void => {
        keep(chunk);
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) if (line.trim() !== '' && (stream === 'stderr' || isErrorLine(line))) errors.push(line);
      };
    };
    child.stdout.setEncoding('utf8').on('data', lines('stdout'));
    child.stderr.setEncoding('utf8').on('data', lines('stderr'));
  });

  try {
    const started = await Promise.race([
      listening,
      exited.then(() => undefined),
      new Promise<'timeout'>((resolve) => setTimeout(resolve, timeoutMs, 'timeout').unref()),
    ]);
    if (typeof started !== 'string' || started === 'timeout') {
      throw new Error(`herald --role ${role} ${started === 'timeout' ? `did not listen within ${timeoutMs} ms` : 'exited before listening'}:\n${tail}`);
    }
    const deadline = Date.now() + timeoutMs;
    while (!(await ready(started))) {
      if (exit !== undefined || Date.now() > deadline) throw new Error(`herald --role ${role} never answered /readyz with 200:\n${tail}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return {
      role,
      pid: child.pid ?? 0,
      url: started,
      get exit() { return exit; },
      output: () => tail,
      errorLines: () => errors,
      signal: (signal) => { child.kill(signal); },
      kill,
    };
  } catch (error) {
    await kill();
    throw error;
  }
}
