// The README's "Client libraries" examples run as written, against a real herald, with
// each client installed as a user installs it: the TypeScript package packed by
// `npm pack` (its build script included) and unpacked into a project's node_modules,
// the example type-checked there by tsc and run by node; the Python package from its
// folder on PYTHONPATH. Only the address differs: localhost:8080 becomes the
// port herald took.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, runToEnd } from '../support/child-process.ts';
import { openClientAccount, startClientHerald, type ClientHerald } from '../support/client-world.ts';

/** The README's one ```<language> block of the "Client libraries" section. */
function example(language: 'ts' | 'python'): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('## Client libraries');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');
  assert.equal(blocks.length, 1, `one ${language} example`);
  return blocks[0] ?? '';
}

let herald: ClientHerald;
let dir: string;
before(async () => {
  herald = await startClientHerald();
  dir = mkdtempSync(join(tmpdir(), 'herald-client-readme-'));
});
after(async () => {
  await herald?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** The example's output: "sent <msgid>", then one line per email of the account, the one just sent among them. */
function assertSentAndListed(stdout: string): void {
  const [first, ...listed] = stdout.trim().split('\n');
  const msgid = /^sent ([0-9a-f-]{36})$/.exec(first ?? '')?.[1];
  assert.ok(msgid !== undefined, stdout);
  assert.equal(listed.length, 1, stdout);
  assert.match(listed[0] ?? '', new RegExp(`^${msgid} (queued|sending|sent) ana@example\\.org$`));
}

test('the README\'s TypeScript example, with the packed @herald/client installed, type-checks and sends', async () => {
  const account = await openClientAccount(herald);
  // The package as `npm pack` makes it, from a copy of its sources (the build writes dist/ beside them).
  const source = join(dir, 'typescript');
  cpSync(join(REPO, 'clients/typescript'), source, { recursive: true, filter: (path) => !/\/(node_modules|dist)$/.test(path) });
  symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'));
  const packed = await runToEnd('npm', ['pack', '--silent', '--pack-destination', dir], process.env, source);
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = join(dir, packed.stdout.trim().split('\n').at(-1) ?? '');

  const project = join(dir, 'project');
  const installed = join(project, 'node_modules/@herald/client');
  mkdirSync(installed, { recursive: true });
  const unpacked = await runToEnd('tar', ['xzf', tarball, '-C', installed, '--strip-components=1'], process.env);
  assert.equal(unpacked.code, 0, unpacked.stderr);
  for (const tool of ['typescript', '@types']) symlinkSync(join(REPO, 'node_modules', tool), join(project, 'node_modules', tool));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  // A consumer's usual settings, none of herald's own.
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', strict: true, noEmit: true, types: ['node'] }, include: ['send.ts'],
  }));
  writeFileSync(join(project, 'send.ts'), example('ts').replaceAll('http://localhost:8080', herald.url));

  const checked = await runToEnd(join(REPO, 'node_modules/.bin/tsc'), ['-p', join(project, 'tsconfig.json')], process.env, project);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  const run = await runToEnd(process.execPath, ['send.ts'], { ...process.env, HERALD_API_KEY: account.apiKey }, project);
  assert.equal(run.code, 0, run.stderr);
  assertSentAndListed(run.stdout);
});

test('the README\'s Python example, with clients/python on PYTHONPATH, sends', async () => {
  const account = await openClientAccount(herald);
  // `pip install ./clients/python` needs the wheel package, which this machine may lack and cannot download:
  // the package folder on PYTHONPATH is the README's other way, and the same code.
  writeFileSync(join(dir, 'send.py'), example('python').replaceAll('http://localhost:8080', herald.url));
  const run = await runToEnd('python3', [join(dir, 'send.py')], {
    ...process.env, PYTHONPATH: join(REPO, 'clients/python'), HERALD_API_KEY: account.apiKey, PYTHONDONTWRITEBYTECODE: '1',
  }, dir);
  assert.equal(run.code, 0, run.stderr);
  assertSentAndListed(run.stdout);
});
