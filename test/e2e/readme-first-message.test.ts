// The README's "First message" runs as pasted: its shell blocks are taken from the
// README itself and run by bash, in order, against the service started as `npm start`
// starts it (src/main.ts serve), both in a fresh folder (so ./data and acme.json are
// the folder's own). Only the port differs: the README's localhost:8080 becomes the
// port the service took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { REPO, runToEnd } from '../support/child-process.ts';

/** The ```sh blocks of the README's "First message" section, in order, unindented. */
function firstMessageBlocks(): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('## First message');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map((m) => (m[2] ?? '').replace(new RegExp(`^${m[1]}`, 'gm'), ''));
}

test('the README\'s first-message commands, run as written, send the email and read it back', async (t) => {
  const blocks = firstMessageBlocks();
  assert.equal(blocks.length, 3, 'account, send, read back');
  // A folder that looks like the repository to npm and node: its own ./data, the repository's code.
  const dir = mkdtempSync(join(tmpdir(), 'herald-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const entry of ['package.json', 'src', 'deploy', 'node_modules', 'web']) symlinkSync(join(REPO, entry), join(dir, entry));
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('HERALD_')));
  Object.assign(env, { HERALD_PORT: '0', HERALD_HOST: '127.0.0.1', HERALD_LOG_LEVEL: 'info' });

  const server = spawn(process.execPath, ['src/main.ts', 'serve'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => { if (server.exitCode === null) server.kill('SIGKILL'); });
  let output = '';
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    server.stdout.on('data', () => {
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (listening?.[1]) { clearTimeout(timer); resolve(listening[1]); }
    });
  });

  const script = blocks.join('\n').replaceAll('http://localhost:8080', baseUrl);
  const run = await runToEnd('bash', ['-euo', 'pipefail', '-c', script], env, dir);
  assert.equal(run.code, 0, `${run.stderr}\n${output}`);
  // echo "$MSGID", then the status JSON and the MIME message (curl adds no newline between them).
  const newline = run.stdout.indexOf('\n');
  const msgid = run.stdout.slice(0, newline);
  assert.match(msgid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const rest = run.stdout.slice(newline + 1);
  const end = [...rest.matchAll(/\}/g)].map((m) => m.index + 1).find((i) => { try { JSON.parse(rest.slice(0, i)); return true; } catch { return false; } });
  assert.ok(end !== undefined, rest.slice(0, 500));
  const message = JSON.parse(rest.slice(0, end));
  assert.deepStrictEqual([message.msgid, message.channel, message.recipient, message.status], [msgid, 'email', 'ana@example.org', 'sent']);
  const mime = rest.slice(end);
  assert.match(mime, /^Subject: Hello from herald\r?$/m);
  assert.match(mime, /^To: ana@example.org\r?$/m);

  server.kill('SIGTERM');
  const [code] = await once(server, 'exit');
  assert.equal(code, 0);
});
