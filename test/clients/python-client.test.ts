// The Python client (clients/python): its unittest suite (clients/python/tests/test_client.py)
// run by python3 against a real herald process. Every test of the suite must pass; none
// may be skipped, and a machine without python3 fails here rather than passing quietly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO, runToEnd } from '../support/child-process.ts';
import { ADMIN_TOKEN, startClientHerald } from '../support/client-world.ts';

const SUITE = join(REPO, 'clients/python/tests/test_client.py');
/** The suite's tests, as unittest names them in its verbose output. */
const TESTS = 21;

test('the Python client\'s suite passes against a real herald, every test run and none skipped', async (t) => {
  const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  assert.ok(python.error === undefined && python.status === 0, `python3 is needed to test clients/python (3.9 or newer) and was not found on PATH: ${python.error?.message ?? python.stderr}`);

  const herald = await startClientHerald();
  t.after(() => herald.stop());
  const run = await runToEnd('python3', [SUITE], { ...process.env, HERALD_URL: herald.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, PYTHONDONTWRITEBYTECODE: '1' });
  assert.equal(run.code, 0, run.stderr);
  // unittest reports on stderr: one "… ok" line per test, then "Ran N tests" and "OK".
  assert.equal([...run.stderr.matchAll(/^test_\w+ \(.*\) \.\.\. ok$/gm)].length, TESTS, run.stderr);
  assert.match(run.stderr, new RegExp(`^Ran ${TESTS} tests in [\\d.]+s\\n\\nOK\\n$`, 'm'));
});
