// Servers a fault test may restart or kill: a PostgreSQL cluster made with initdb in a
// temporary directory, and a redis-server, each on a free loopback port of its own. The
// machine's own servers (TEST_POSTGRES_URL, TEST_REDIS_URL) are never touched.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** PostgreSQL's server programs: on PATH, or in Debian's versioned folder (the newest). */
function postgresBin(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir !== '' && existsSync(join(dir, 'initdb'))) return dir;
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const versions = readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(debian, versions[0], 'bin');
}

const bin = postgresBin();
const asRoot = process.getuid?.() === 0;
/** Why a throwaway PostgreSQL cannot be made here, or false. */
export const skipWithoutInitdb: string | false = bin === undefined ? 'needs PostgreSQL\'s initdb and pg_ctl (on PATH or in /usr/lib/postgresql/*/bin): not found'
  // initdb refuses root: the cluster then belongs to the postgres user.
  : asRoot && spawnSync('id', ['-u', 'postgres']).status !== 0 ? 'needs a `postgres` user to run initdb as (this runs as root, which initdb refuses): not found'
    : false;

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  readonly url: string;
  /** `pg_ctl restart -m fast`: every connection is terminated; resolves when the server accepts again, with the time it took. */
  restart(): Promise<number>;
  /** `pg_ctl stop -m fast`, keeping its directory: an outage until resume(). */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and directory. */
  resume(): Promise<void>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/**
 * initdb + pg_ctl start in a new temporary directory. initdb refuses to run as root: as
 * root the cluster belongs to the `postgres` user and its programs run through runuser.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  if (bin === undefined) throw new Error('initdb not found');
  const dir = mkdtempSync(join(tmpdir(), 'herald-pg-'));
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const pg = (program: string, args: readonly string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), [...args]);
  const data = join(dir, 'data');
  const port = await freePort();
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c max_connections=100`;
  const ctl = (args: readonly string[]) => pg('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', ...args]);
  // The server is a daemon: it must not outlive the test process, however that ends.
  let stopped = false;
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
    spawnSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args] : args, { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stopNow);
  try {
    await ctl(['-o', serverOptions, 'start']);
  } catch (error) {
    stopNow();
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      const began = performance.now();
      await ctl(['-m', 'fast', '-o', serverOptions, 'restart']);
      return Math.round(performance.now() - began);
    },
    async halt() {
      await ctl(['-m', 'fast', 'stop']);
    },
    async resume() {
      await ctl(['-o', serverOptions, 'start']);
    },
    async stop() {
      if (stopped) return;
      await ctl(['-m', 'immediate', 'stop']).catch(() => {});
      stopNow();
    },
  };
}

export interface ThrowawayRedis {
  readonly url: string;
  /** SIGKILL: every connection drops at once. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: it saves nothing). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Whether redis-server is installed. */
export const skipWithoutRedisServer: string | false =
  (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, 'redis-server'))) ? false : 'needs redis-server on PATH: not found';

/** `redis-server` on a free port, saving nothing. */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    child = started;
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (started.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  process.on('exit', () => child?.kill('SIGKILL'));
  await start();
  return { url: `redis://127.0.0.1:${port}`, kill, start, stop: kill };
}
