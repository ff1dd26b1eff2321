// HERALD_LOG_FORMAT: JSON lines by default, pino-pretty's readable lines on request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../src/logger.ts';

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
