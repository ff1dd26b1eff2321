// Configuration as an operator meets it: the CLI and the server spawned as child
// processes, their exit codes and their exact words on a bad value, a misspelt
// variable, a placeholder token, a port in use and a Node that is too old.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heraldCli, heraldEnv, runToEnd, type Run } from '../support/child-process.ts';

const TOKEN = 'q8Zr2LwT0pXe5VbN-test-only';

const run = (command: string, args: readonly string[], env: Record<string, string>, extra: NodeJS.ProcessEnv = {}): Promise<Run> =>
  runToEnd(command, args, { ...heraldEnv(env), ...extra });

const cli = (env: Record<string, string>, ...args: string[]): Promise<Run> => heraldCli(env, ...args);

function dataDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('HERALD_TRUST_PROXY=maybe exits 78 naming the variable', async () => {
  const result = await cli({ HERALD_TRUST_PROXY: 'maybe' }, 'config', '--check');
  assert.deepStrictEqual(result, {
    code: 78, stdout: '',
    stderr: 'herald: configuration error: HERALD_TRUST_PROXY: expected false, true, a hop count or a comma-separated list of IPs and CIDRs, got "maybe"\n',
  });
});

test('the example file\'s placeholder admin token exits 78', async () => {
  const result = await cli({ HERALD_ADMIN_TOKEN: 'CHANGE-ME-at-least-16-characters' }, 'config', '--check');
  assert.deepStrictEqual(result, {
    code: 78, stdout: '',
    stderr: 'herald: configuration error: HERALD_ADMIN_TOKEN: is the example file\'s placeholder; set a secret of your own (e.g. `openssl rand -base64 32`), or leave it unset to have one generated\n',
  });
});

test('a misspelt HERALD_ variable is warned about with the setting it resembles, and the command still runs', async () => {
  const result = await cli({ HERALD_PORTT: '9000' }, 'config', '--check', '--json');
  assert.equal(result.code, 0);
  assert.equal(result.stderr, 'herald: warning: HERALD_PORTT is not a herald setting and is ignored; did you mean HERALD_PORT?\n');
  assert.deepStrictEqual(JSON.parse(result.stdout).settings[0], { env: 'HERALD_PORT', value: '8080', source: 'default' });
});

test('config --check prints the values in effect with every secret masked', async () => {
  const result = await cli({
    HERALD_ADMIN_TOKEN: TOKEN,
    HERALD_DATABASE_URL: 'postgres://herald:s3cret@db.internal:5432/herald?sslmode=require',
    HERALD_EMAIL_TRANSPORT: 'smtps://mailer:relay-pass@relay.example.com:465',
    HERALD_REDIS_URL: 'redis://:redis-pass@cache:6379/2',
    HERALD_WHATSAPP_APP_SECRET: 'meta-app-secret',
    HERALD_PORT: '9000',
  }, 'config', '--check', '--json');
  assert.equal(result.code, 0, result.stderr);
  for (const secret of [TOKEN, 's3cret', 'relay-pass', 'redis-pass', 'meta-app-secret']) assert.equal(result.stdout.includes(secret), false, secret);
  const settings = new Map((JSON.parse(result.stdout).settings as { env: string }[]).map((s) => [s.env, s]));
  assert.deepStrictEqual(
    ['HERALD_PORT', 'HERALD_PUBLIC_URL', 'HERALD_ADMIN_TOKEN', 'HERALD_DATABASE_URL', 'HERALD_EMAIL_TRANSPORT', 'HERALD_REDIS_URL', 'HERALD_WHATSAPP_APP_SECRET', 'HERALD_BOUNCE_DOMAIN'].map((env) => settings.get(env)),
    [
      { env: 'HERALD_PORT', value: '9000', source: 'set' },
      { env: 'HERALD_PUBLIC_URL', value: 'http://localhost:9000', source: 'default' },
      { env: 'HERALD_ADMIN_TOKEN', value: '****', source: 'set' },
      { env: 'HERALD_DATABASE_URL', value: 'postgres://herald:****@db.internal:5432/herald?sslmode=require', source: 'set' },
      { env: 'HERALD_EMAIL_TRANSPORT', value: 'smtps://mailer:****@relay.example.com:465', source: 'set' },
      { env: 'HERALD_REDIS_URL', value: 'redis://:****@cache:6379/2', source: 'set' },
      { env: 'HERALD_WHATSAPP_APP_SECRET', value: '****', source: 'set' },
      { env: 'HERALD_BOUNCE_DOMAIN', value: null, source: 'unset' },
    ],
  );
});

test('config --check prints one NAME=value line per setting, with where the value came from', async () => {
  const result = await cli({ HERALD_ADMIN_TOKEN: TOKEN }, 'config', '--check');
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n').map((line) => line.replace(/ +#/, ' #'));
  assert.equal(lines[0], 'HERALD_PORT=8080 # default');
  assert.equal(lines.find((line) => line.startsWith('HERALD_ADMIN_TOKEN=')), 'HERALD_ADMIN_TOKEN=**** # set');
  assert.equal(lines.find((line) => line.startsWith('HERALD_REDIS_URL=')), 'HERALD_REDIS_URL= # unset');
});

test('a server whose port is in use says so in one line and exits 78', async (t) => {
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  t.after(() => holder.close());
  const port = (holder.address() as { port: number }).port;
  const result = await run(process.execPath, ['src/main.ts', 'serve'], {
    HERALD_PORT: String(port), HERALD_HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: TOKEN, HERALD_LOG_LEVEL: 'warn',
    HERALD_DATABASE_URL: `sqlite:${join(dataDir(t), 'herald.db')}`,
  });
  assert.deepStrictEqual(result, {
    code: 78, stdout: '',
    stderr: `herald: configuration error: HERALD_PORT: port ${port} on 127.0.0.1 is already in use (by another herald or another program); stop it or choose another port\n`,
  });
});

test('a SQLite path under a file exits 78 naming HERALD_DATABASE_URL', async (t) => {
  const file = join(dataDir(t), 'not-a-folder');
  rmSync(file, { force: true });
  await import('node:fs/promises').then((fs) => fs.writeFile(file, ''));
  const result = await cli({ HERALD_DATABASE_URL: `sqlite:${file}/herald.db` }, 'accounts', 'show', '0190');
  assert.deepStrictEqual(result, {
    code: 78, stdout: '',
    stderr: `herald: configuration error: HERALD_DATABASE_URL: cannot open the database: EEXIST: file already exists, mkdir '${file}'\n`,
  });
});

// The machines ship an older Node at /usr/bin/node beside the Node 24 the tests run on.
const OLD_NODE = '/usr/bin/node';
const oldNodeVersion = ((): string | undefined => {
  try {
    return execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
})();
const oldNodeAbsent = oldNodeVersion === undefined || Number(oldNodeVersion.split('.')[0]) >= 24;

test('deploy/herald under a Node older than 24 refuses in one line with exit 78', { skip: oldNodeAbsent && `no Node older than 24 at ${OLD_NODE}` }, async () => {
  for (const args of [['serve'], ['config', '--check']]) {
    const result = await run('sh', ['deploy/herald', ...args], { HERALD_ADMIN_TOKEN: TOKEN }, { PATH: '/usr/bin:/bin' });
    assert.deepStrictEqual(result, { code: 78, stdout: '', stderr: `herald: Node.js 24 or later is required; this is Node.js ${oldNodeVersion} (${OLD_NODE})\n` });
  }
});

test('deploy/herald under Node 24 runs the command', async () => {
  const nodeDir = process.execPath.slice(0, process.execPath.lastIndexOf('/'));
  const result = await run('sh', ['deploy/herald', 'config', '--check', '--json'], { HERALD_ADMIN_TOKEN: TOKEN }, { PATH: `${nodeDir}:/usr/bin:/bin` });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).settings.length > 30, true);
});
