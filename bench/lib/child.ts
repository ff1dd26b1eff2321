import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

// The measured senders (herald, or the raw library of a baseline) run in a child
// process of their own, as they would in production: their event loop is not the one
// of the load generator and the peers. Parent and child talk over the IPC channel:
// the child announces `ready` with what the parent needs, then answers commands.

interface Request {
  readonly id: number;
  readonly command: string;
  readonly args: unknown;
}

type Reply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: string };
type ChildMessage = { readonly type: 'ready'; readonly info: unknown } | ({ readonly type: 'reply' } & Reply);

export interface Child<Ready> {
  readonly ready: Ready;
  readonly pid: number;
  call<T>(command: string, args?: unknown): Promise<T>;
  /** Asks the child to close what it opened and waits for it to exit on its own. */
  close(): Promise<void>;
  /** SIGKILL this child (the clean-up of an aborted run). */
  kill(): void;
}

export interface ChildOptions {
  readonly env?: Record<string, string>;
  /** Node flags of the child (e.g. --cpu-prof); none by default, whatever the parent had. */
  readonly execArgv?: readonly string[];
  /** Where the child's stdout goes: herald's request log is not the benchmark's output. */
  readonly stdout?: 'ignore' | 'inherit';
  readonly signal?: AbortSignal;
}

export async function startChild<Ready>(script: URL, options: ChildOptions = {}): Promise<Child<Ready>> {
  const child: ChildProcess = fork(fileURLToPath(script), [], {
    env: { ...process.env, ...options.env },
    execArgv: [...(options.execArgv ?? [])],
    stdio: ['ignore', options.stdout ?? 'ignore', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exited = false;
  let killed = false;
  const exit = once(child, 'exit').then(([code, signal]) => {
    exited = true;
    for (const { reject } of pending.values()) reject(new Error(`child ${script.pathname} exited (${signal ?? code}) before answering`));
    pending.clear();
    return { code: code as number | null, signal: signal as string | null };
  });

  const ready = await new Promise<Ready>((resolve, reject) => {
    child.on('message', (raw) => {
      const message = raw as ChildMessage;
      if (message.type === 'ready') resolve(message.info as Ready);
      else if (message.type === 'reply') {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.ok) waiter?.resolve(message.value);
        else waiter?.reject(new Error(message.error));
      }
    });
    void exit.then(({ code, signal }) => reject(new Error(`child ${script.pathname} exited (${signal ?? code}) before it was ready`)));
    options.signal?.addEventListener('abort', () => reject(new Error(`child ${script.pathname} not ready in time`)), { once: true });
  });

  function call<T>(command: string, args?: unknown): Promise<T> {
    if (exited || killed) return Promise.reject(new Error(`child ${script.pathname} has exited`));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, command, args } satisfies Request);
    });
  }

  return {
    ready,
    pid: child.pid ?? -1,
    call,
    async close() {
      if (exited) return;
      if (killed) {
        await exit;
        return;
      }
      await call('close');
      const { code, signal } = await exit;
      if (code !== 0) throw new Error(`child ${script.pathname} ended with ${signal ?? code}`);
    },
    kill() {
      if (exited || killed) return;
      killed = true;
      child.kill('SIGKILL');
    },
  };
}

/**
 * The child's side: announces `ready`, then answers each command with its handler's
 * value. `close` runs the given clean-up, answers, and lets go of the IPC channel so
 * the process ends once nothing else holds it (a CPU profile is written then).
 */
export function serveParent(ready: unknown, handlers: Record<string, (args: unknown) => Promise<unknown>>, close: () => Promise<void>): void {
  if (process.send === undefined) throw new Error('this script is started by the benchmark scripts (bench/run.ts), not by hand');
  const send = process.send.bind(process);
  process.on('message', (raw) => {
    const request = raw as Request;
    const handler = request.command === 'close' ? close : handlers[request.command];
    if (handler === undefined) {
      send({ type: 'reply', id: request.id, ok: false, error: `unknown command ${request.command}` });
      return;
    }
    handler(request.args).then(
      (value) => {
        send({ type: 'reply', id: request.id, ok: true, value: value ?? null }, () => {
          if (request.command === 'close') process.disconnect();
        });
      },
      (error: unknown) => send({ type: 'reply', id: request.id, ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
    );
  });
  send({ type: 'ready', info: ready });
}
