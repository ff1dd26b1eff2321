import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startChild, type Child } from './child.ts';
import type { Budget } from './common.ts';
import type { BenchDatabase } from './databases.ts';
import type { HeraldReady } from './herald-child.ts';

// Starting herald (bench/lib/herald-child.ts) the way every benchmark does: HERALD_*
// variables as in production, listening on 127.0.0.1, on the store it is given.

export interface HeraldStart {
  readonly database: BenchDatabase;
  readonly budget: Budget;
  /** HERALD_LOG_LEVEL; herald's stdout (its request log) goes to /dev/null. */
  readonly logLevel: string;
  /** Messages (and WhatsApp balance) the bench account opens with. */
  readonly messagesLeft?: number;
  /** The in-process outbox worker (BENCH_WORKER). */
  readonly worker?: boolean;
  readonly dkim?: boolean;
  /** Write a CPU profile into this directory and time every SQL statement. */
  readonly profileDir?: string;
  /** More HERALD_* (transports) or NODE_* variables. */
  readonly env?: Record<string, string>;
}

export type Herald = Child<HeraldReady>;

// herald runs with the V8 settings and compile cache it is deployed with (deploy/herald).
const NODE_FLAGS = readFileSync(new URL('../../deploy/node-flags', import.meta.url), 'utf8').trim().split(/\s+/);
const COMPILE_CACHE = fileURLToPath(new URL('../../node_modules/.cache/node-compile-cache', import.meta.url));

export function startHerald(start: HeraldStart): Promise<Herald> {
  const profile = start.profileDir !== undefined && start.profileDir !== '';
  return start.budget.within(
    startChild<HeraldReady>(new URL('./herald-child.ts', import.meta.url), {
      env: {
        HERALD_DATABASE_URL: start.database.url,
        HERALD_HOST: '127.0.0.1',
        HERALD_PORT: '0',
        HERALD_PUBLIC_URL: 'https://herald.example.com',
        HERALD_ADMIN_TOKEN: 'bench-admin-token-0123456789',
        HERALD_LOG_LEVEL: start.logLevel,
        BENCH_WORKER: start.worker === false ? 'off' : 'on',
        BENCH_DKIM: start.dkim === false ? 'off' : 'on',
        ...(start.messagesLeft === undefined ? {} : { BENCH_MESSAGES_LEFT: String(start.messagesLeft) }),
        BENCH_SQL_TIMING: profile ? 'on' : 'off',
        NODE_COMPILE_CACHE: COMPILE_CACHE,
        ...start.env,
      },
      execArgv: ['--disable-warning=Warning', ...NODE_FLAGS, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${start.profileDir}`] : [])],
      signal: start.budget.signal,
    }),
    () => `starting herald on ${start.database.kind}`,
  );
}
