import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:net';
import { closedPort as freePort } from '../../test/support/closed-port.ts';
import { cpuSeconds } from './proc-stats.ts';

// Kannel (Debian's `kannel` package: bearerbox + smsbox) as the SMS peer a user would pick
// instead of herald, in a throwaway directory: its sendsms HTTP interface in front, one
// SMPP transceiver bind to the same SMSC stand-in as herald's behind. With `store: spool`
// bearerbox keeps every message in its spool directory until the SMSC took it (durable,
// as herald's outbox is); with `none` it keeps them in memory only.

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';

export type KannelStore = 'none' | 'spool';

export interface KannelOptions {
  readonly smscPort: number;
  readonly systemId: string;
  readonly password: string;
  readonly store: KannelStore;
  /** submit_sm waiting for their resp at once (Kannel's max-pending-submits; herald's window). */
  readonly window: number;
}

export interface Kannel {
  /** The sendsms URL of one message (GET; answered 202 `0: Accepted for delivery`). */
  sendUrl(to: string, text: string): string;
  /** CPU seconds (user + system) of bearerbox and smsbox so far. */
  cpuSeconds(): number;
  close(): Promise<void>;
}

/** Why Kannel cannot run here, or undefined when it can. */
export function kannelMissing(): string | undefined {
  return existsSync(BEARERBOX) && existsSync(SMSBOX) ? undefined : `Kannel is not installed (${BEARERBOX}, ${SMSBOX}: apt-get install kannel)`;
}

function config(dir: string, options: KannelOptions, ports: { admin: number; box: number; sendsms: number }): string {
  const store = options.store === 'spool' ? `store-type = spool\nstore-location = "${join(dir, 'spool')}"\n` : '';
  return `group = core
admin-port = ${ports.admin}
admin-password = bench
admin-interface = 127.0.0.1
smsbox-port = ${ports.box}
smsbox-interface = 127.0.0.1
box-allow-ip = 127.0.0.1
log-file = "${join(dir, 'bearerbox.log')}"
log-level = 3
${store}
group = smsc
smsc = smpp
smsc-id = bench
host = 127.0.0.1
port = ${options.smscPort}
transceiver-mode = true
smsc-username = ${options.systemId}
smsc-password = ${options.password}
system-type = ""
source-addr-ton = 5
source-addr-npi = 0
max-pending-submits = ${options.window}

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${ports.box}
sendsms-port = ${ports.sendsms}
sendsms-interface = 127.0.0.1
log-file = "${join(dir, 'smsbox.log')}"
log-level = 3

group = sendsms-user
username = bench
password = bench
default-sender = herald
max-messages = 1
concatenation = false

group = sms-service
keyword = default
text = "ok"
`;
}

/** Starts bearerbox, then smsbox; resolves once sendsms answers. */
export async function startKannel(options: KannelOptions): Promise<Kannel> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-bench-kannel-'));
  if (options.store === 'spool') await mkdir(join(dir, 'spool'));
  const ports = { admin: await freePort(), box: await freePort(), sendsms: await freePort() };
  const file = join(dir, 'kannel.conf');
  await writeFile(file, config(dir, options, ports));
  const children: ChildProcess[] = [];
  const close = async (): Promise<void> => {
    for (const child of [...children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    children.push(spawn(BEARERBOX, [file], { stdio: 'ignore' }));
    await waitForPort(ports.box, 'bearerbox');
    children.push(spawn(SMSBOX, [file], { stdio: 'ignore' }));
    await waitForPort(ports.sendsms, 'smsbox');
  } catch (error) {
    await close();
    throw error;
  }
  const base = `http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms?username=bench&password=bench`;
  return {
    sendUrl: (to, text) => `${base}&to=${encodeURIComponent(to)}&text=${encodeURIComponent(text)}`,
    cpuSeconds: () => children.reduce((sum, child) => sum + (child.pid === undefined ? 0 : cpuSeconds(child.pid)), 0),
    close,
  };
}

async function waitForPort(port: number, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline) throw new Error(`${what} did not listen on 127.0.0.1:${port} within 10 s`);
    await sleep(50);
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}
