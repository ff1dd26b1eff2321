// HERALD_LOG_FORMAT: JSON lines by default, pino-pretty's readable lines on request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { createLogger } from '../src/logger.ts';
import { REPO, runToEnd } from './support/child-process.ts';

function collect(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({ write(chunk, _encoding, done) { text += String(chunk); done(); } });
  return { stream, text: () => text };
}

test('the json format writes one JSON object a line', () => {
  const out = collect();
  createLogger({ level: 'info', format: 'json' }, out.stream).info({ msgid: 'm1', channel: 'sms' }, 'delivery outcome');
  const { time: _time, pid: _pid, hostname: _hostname, ...line } = JSON.parse(out.text());
  assert.deepStrictEqual(line, { level: 30, msgid: 'm1', channel: 'sms', msg: 'delivery outcome' });
});

test('the pretty format writes a readable line with the level, the message and the fields', () => {
  const out = collect();
  createLogger({ level: 'info', format: 'pretty' }, out.stream).info({ msgid: 'm1', channel: 'sms' }, 'delivery outcome');
  assert.match(out.text(), /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} [^\]]+\] INFO: delivery outcome\n    msgid: "m1"\n    channel: "sms"\n$/);
});

test('an Authorization header in a logged request is redacted', () => {
  const out = collect();
  createLogger({ level: 'info', format: 'json' }, out.stream).info({ req: { headers: { authorization: 'Bearer secret-key' } } }, 'request');
  assert.deepStrictEqual(JSON.parse(out.text()).req, { headers: { authorization: '[Redacted]' } });
});

// stdout is written a few kilobytes at a time (src/logger.ts): a line must still come out
// when the process exits at once, and without the exit when the process stays quiet.
const LOGS_ONE_LINE = `import { createLogger } from './src/logger.ts';
const logger = createLogger({ level: 'info', format: 'json' });
logger.info({ msgid: 'm1' }, 'delivery outcome');`;

test('a line logged just before the process exits reaches stdout', async () => {
  const run = await runToEnd(process.execPath, ['--input-type=module', '-e', `${LOGS_ONE_LINE}\nprocess.exit(3);`], process.env);
  assert.equal(run.code, 3);
  assert.equal(JSON.parse(run.stdout).msg, 'delivery outcome');
});

test('a line logged by a process that then stays quiet reaches stdout without waiting for its exit', { timeout: 10_000 }, async (t) => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `${LOGS_ONE_LINE}\nsetTimeout(() => {}, 60_000);`], { cwd: REPO });
  t.after(() => child.kill('SIGKILL'));
  const [chunk] = await once(child.stdout, 'data') as [Buffer];
  assert.equal(JSON.parse(String(chunk)).msg, 'delivery outcome');
  assert.equal(child.exitCode, null);
});

test('an error line goes out at once, with the lines buffered before it, while the process is busy', { timeout: 20_000 }, async (t) => {
  // After logging, the child holds its event loop for 4 s: no timer flushes meanwhile, only the write the error started.
  const child = spawn(process.execPath, ['--input-type=module', '-e', `${LOGS_ONE_LINE}
logger.error({ msgid: 'm2' }, 'transport threw');
process.stderr.write('busy\\n');
const until = Date.now() + 4000;
while (Date.now() < until);`], { cwd: REPO });
  t.after(() => child.kill('SIGKILL'));
  await once(child.stderr, 'data');
  const busySince = Date.now();
  let out = '';
  while (!out.includes('transport threw')) out += String((await once(child.stdout, 'data') as [Buffer])[0]);
  assert.ok(Date.now() - busySince < 3000, `the lines came ${Date.now() - busySince} ms after the child got busy`);
  assert.deepStrictEqual(out.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg), ['delivery outcome', 'transport threw']);
});
