import { test } from 'node:test';
import assert from 'node:assert/strict';
import { terminalProgress } from '../../src/cli/progress.ts';

function stream(isTTY: boolean): { isTTY: boolean; written: string[]; write(text: string): void } {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => void written.push(text) };
}

test('on a terminal, progress rewrites one line and clears it at the end', () => {
  const terminal = stream(true);
  const progress = terminalProgress(terminal);
  progress.step(0, 2, 'verifying a.org');
  progress.step(1, 2, 'verifying b.org');
  progress.end();
  assert.deepStrictEqual(terminal.written, ['\r\u001b[K0/2 verifying a.org', '\r\u001b[K1/2 verifying b.org', '\r\u001b[K']);
});

test('off a terminal (a pipe, a log), progress writes nothing', () => {
  const pipe = stream(false);
  const progress = terminalProgress(pipe);
  progress.step(0, 1, 'verifying a.org');
  progress.end();
  assert.deepStrictEqual(pipe.written, []);
});
