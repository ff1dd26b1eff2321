// A PostgreSQL cluster of the test's own (initdb + pg_ctl in a temporary folder, on a
// free loopback port), which the test may stop and start: the machine's own server is
// shared and never touched. initdb refuses to run as root, so as root the cluster is
// made and run by the `postgres` user (runuser). Where initdb is missing the helper
// says why, and the test skips with that one line.
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { runToEnd, type Run } from './child-process.ts';
import { closedPort } from './closed-port.ts';

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  readonly url: string;
  /** Stops the server (fast shutdown: sessions are terminated, as in a restart). */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  start(): Promise<void>;
}

const POSTGRES_USER = 'postgres';

function missingTool(): string | undefined {
  for (const tool of ['initdb', 'pg_ctl']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) return `${tool} is not installed: the throwaway PostgreSQL cluster cannot be made`;
  }
  const root = process.getuid?.() === 0;
  if (root && spawnSync('runuser', ['-u', POSTGRES_USER, '--', 'true'], { stdio: 'ignore' }).status !== 0) {
    return `running as root without a \`${POSTGRES_USER}\` user for runuser: initdb refuses root`;
  }
  return undefined;
}

/**
 * A running throwaway cluster, removed when the test ends; undefined (and the test
 * skipped with the reason) where initdb cannot be run.
 */
export async function throwawayPostgres(t: TestContext): Promise<ThrowawayPostgres | undefined> {
  const missing = missingTool();
  if (missing !== undefined) {
    t.skip(missing);
    return undefined;
  }
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'herald-pg-'));
  const data = join(dir, 'data');
  if (root) {
    const uid = Number(spawnSync('id', ['-u', POSTGRES_USER], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', POSTGRES_USER], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const run = async (command: string, args: readonly string[]): Promise<Run> => {
    const [file, fullArgs] = root ? ['runuser', ['-u', POSTGRES_USER, '--', command, ...args]] : [command, args];
    const result = await runToEnd(file, fullArgs, { ...process.env, LC_ALL: 'C' }, dir);
    if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
    return result;
  };
  // A port just free: the cluster binds it at once.
  const port = await closedPort();
  await run('initdb', ['-D', data, '-U', POSTGRES_USER, '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  let running = false;
  const start = async (): Promise<void> => {
    await run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
    running = true;
  };
  const stop = async (): Promise<void> => {
    await run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
    running = false;
  };
  t.after(async () => {
    if (running) await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await start();
  return { url: `postgres://${POSTGRES_USER}@127.0.0.1:${port}/postgres`, start, stop };
}
