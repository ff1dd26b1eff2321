import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

/** The JSON body of the README's curl example, taken from the README itself. */
function readmeEmailBody(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const curl = readme.slice(readme.indexOf('curl -s http://localhost:8080/v1/email'));
  const match = /-d '([^']+)'/.exec(curl);
  if (!match?.[1]) throw new Error('README has no curl example for /v1/email');
  return match[1];
}

test('a newcomer starts the service, creates an account with the CLI, sends the README email and reads it back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-newcomer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { ...process.env, HERALD_DATABASE_URL: `sqlite:${join(dir, 'herald.db')}`, HERALD_PORT: '0', HERALD_HOST: '127.0.0.1', HERALD_LOG_LEVEL: 'info' };
  delete env.HERALD_ADMIN_TOKEN;

  const server = spawn(process.execPath, ['src/main.ts', 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => { if (server.exitCode === null) server.kill('SIGKILL'); });
  let output = '';
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 15_000);
    server.stdout.on('data', () => {
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (listening?.[1]) { clearTimeout(timer); resolve(listening[1]); }
    });
  });

  const adminToken = /^\s+(herald_admin_\S+)$/m.exec(output)?.[1];
  assert.ok(adminToken, `first start prints an admin token:\n${output}`);

  const created = await run(process.execPath, ['src/cli/main.ts', 'accounts', 'create', '--name', 'acme', '--messages', '1000', '--domain', 'example.com', '--json'], { cwd: root, env });
  const apiKey: string = JSON.parse(created.stdout).apiKey.apiKey;

  const sent = await fetch(`${baseUrl}/v1/email`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: readmeEmailBody(),
  });
  assert.equal(sent.status, 200);
  const { to } = (await sent.json()) as { to: { email: string; msgid: string }[] };
  assert.equal(to[0]?.email, 'ana@example.org');

  let raw: Response | undefined;
  for (let i = 0; i < 50; i++) {
    raw = await fetch(`${baseUrl}/v1/messages/${to[0]?.msgid}/raw`, { headers: { authorization: `Bearer ${apiKey}` } });
    if (raw.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(raw?.status, 200);
  assert.equal(raw?.headers.get('content-type'), 'message/rfc822');
  const mime = await raw.text();
  assert.match(mime, /^Subject: Hello from herald$/m);
  assert.match(mime, /^To: ana@example.org$/m);

  const admin = await fetch(`${baseUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'second' }),
  });
  assert.equal(admin.status, 201);

  assert.doesNotMatch(output, new RegExp(apiKey.replace(/\./g, '\\.')), 'the API key never reaches the logs');
  server.kill('SIGTERM');
  const [code] = await once(server, 'exit');
  assert.equal(code, 0);
});
