import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Debian's Postfix as a smart host on loopback, in a throwaway directory of its own:
// its own config_directory, queue_directory, data_directory and log file, its smtpd on
// 127.0.0.1:<port>, every destination domain routed to a loopback port (transport_maps,
// no DNS). The system's own Postfix (/etc/postfix, /var/spool/postfix) is never
// touched or started. Postfix's master runs only as root, so the tests that use it
// skip elsewhere.

export const POSTFIX = '/usr/sbin/postfix';

/** Why the Postfix relay tests cannot run here, or false. CI installs Postfix (.ci/run). */
export const skipWithoutPostfix: string | false = !existsSync(POSTFIX)
  ? `Postfix relay tests skipped: ${POSTFIX} is missing (apt-get install postfix; .ci/run installs it)`
  : process.getuid?.() !== 0
    ? 'Postfix relay tests skipped: Postfix\'s master runs only as root'
    : false;

export interface PostfixOptions {
  /** Loopback port its smtpd listens on. */
  readonly port: number;
  /** Destination domain → loopback port its mail is relayed to. */
  readonly routes: Readonly<Record<string, number>>;
  /** myhostname: the Reporting-MTA of its notices. */
  readonly hostname: string;
  /** PEM files: its smtpd then offers STARTTLS (smtpd_tls_security_level = may) with this certificate. Default: no TLS. */
  readonly smtpdTls?: { readonly keyFile: string; readonly certFile: string };
  /**
   * `test` (the default, for the tests): retries after a second and no connection cache,
   * so no session to a listener outlives a delivery. `stock`: Postfix's own performance
   * settings (connection cache on demand, retry and backoff times), as its users run it:
   * the benchmarks (bench/README.md lists what differs from a stock main.cf and why).
   */
  readonly tuning?: 'test' | 'stock';
}

export interface PostfixRelay {
  readonly port: number;
  /** The process started (`postfix start-fg`): every Postfix process of this instance runs below it. */
  readonly pid: number;
  /** Postfix's own log (maillog_file), for a failing test's message. */
  log(): Promise<string>;
  close(): Promise<void>;
}

const run = promisify(execFile);

function mainCf(dir: string, options: PostfixOptions): string {
  const routes = Object.entries(options.routes).map(([domain, port]) => `${domain}=smtp:[127.0.0.1]:${port}`).join(', ');
  return [
    'compatibility_level = 3.6',
    `queue_directory = ${dir}/queue`,
    `data_directory = ${dir}/data`,
    `maillog_file = ${dir}/maillog`,
    `maillog_file_prefixes = ${dir}`,
    `myhostname = ${options.hostname}`,
    'mydestination =',
    'inet_interfaces = 127.0.0.1',
    'inet_protocols = ipv4',
    'mynetworks = 127.0.0.0/8',
    'smtpd_relay_restrictions = permit_mynetworks, reject',
    'relay_domains =',
    `transport_maps = inline:{ ${routes} }`,
    'default_transport = error:no route in this test relay',
    'smtp_dns_support_level = disabled',
    'smtp_host_lookup = native',
    'smtp_tls_security_level = none',
    ...smtpdTls(options.smtpdTls),
    'alias_maps =',
    'alias_database =',
    'local_recipient_maps =',
    'biff = no',
    ...((options.tuning ?? 'test') === 'test' ? TEST_TUNING : []),
    '',
  ].join('\n');
}

/**
 * Retries come after a second, not Postfix's five minutes: a notice the listener
 * refused with 451 is sent again while the test waits. No connection cache, so no
 * session to herald's listener outlives a delivery.
 */
const TEST_TUNING = [
  'smtp_connection_cache_on_demand = no',
  'queue_run_delay = 1s',
  'minimal_backoff_time = 1s',
  'maximal_backoff_time = 2s',
] as const;

/** STARTTLS offered, never required: the clients are trusted by address (mynetworks), not by SASL. */
function smtpdTls(tls: PostfixOptions['smtpdTls']): string[] {
  if (tls === undefined) return ['smtpd_tls_security_level = none'];
  return ['smtpd_tls_security_level = may', `smtpd_tls_key_file = ${tls.keyFile}`, `smtpd_tls_cert_file = ${tls.certFile}`];
}

/** The services a relay needs, none chrooted (the throwaway directory has no chroot tree). */
function masterCf(port: number): string {
  return [
    `127.0.0.1:${port} inet n - n - - smtpd`,
    'pickup unix n - n 60 1 pickup',
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'flush unix n - n 1000? 0 flush',
    'proxymap unix - - n - - proxymap',
    'smtp unix - - n - - smtp',
    'relay unix - - n - - smtp',
    'showq unix n - n - - showq',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'tlsmgr unix - - n 1000? 1 tlsmgr',
    'postlog unix-dgram n - n - 1 postlogd',
    '',
  ].join('\n');
}

async function accepting(port: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

export async function startPostfix(options: PostfixOptions): Promise<PostfixRelay> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-postfix-'));
  // Postfix's daemons run as the postfix user and must reach the queue inside.
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'conf'));
  await mkdir(join(dir, 'queue'));
  const conf = join(dir, 'conf');
  await writeFile(join(conf, 'main.cf'), mainCf(dir, options));
  await writeFile(join(conf, 'master.cf'), masterCf(options.port));
  // Postfix waits (300 ms at a time, seconds in all) for a main.cf changed this very
  // moment to settle; dated a minute back, it is read at once.
  const settled = new Date(Date.now() - 60_000);
  await utimes(join(conf, 'main.cf'), settled, settled);
  await utimes(join(conf, 'master.cf'), settled, settled);
  const log = () => readFile(join(dir, 'maillog'), 'utf8').catch(() => '');
  const remove = () => rm(dir, { recursive: true, force: true });

  let master: ChildProcess | undefined;
  try {
    // start-fg checks the configuration and creates the queue's subdirectories with their owners first.
    master = spawn(POSTFIX, ['-c', conf, 'start-fg'], { stdio: 'ignore' });
    const exited = once(master, 'exit');
    for (let waited = 0; !(await accepting(options.port)); waited += 100) {
      if (master.exitCode !== null || waited > 20_000) throw new Error(`Postfix did not start on 127.0.0.1:${options.port}`);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), exited]);
    }
  } catch (error) {
    const text = await log();
    master?.kill('SIGTERM');
    await remove();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${text}`);
  }
  const running = master;
  return {
    port: options.port,
    pid: running.pid ?? -1,
    log,
    async close() {
      const exited = running.exitCode === null ? once(running, 'exit') : Promise.resolve();
      // The master stops its daemons; the command waits until it has.
      await run(POSTFIX, ['-c', conf, 'stop']).catch(() => running.kill('SIGTERM'));
      await exited;
      await remove();
    },
  };
}
