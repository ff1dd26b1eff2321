// No Docker engine runs here, so the image's build context is checked from its two
// files: every source the Dockerfile COPYs or ADDs from the context must be admitted by
// .dockerignore (the matcher is @balena/dockerignore, Docker's own rules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { globSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type dockerignore from '@balena/dockerignore';

const root = new URL('../../', import.meta.url).pathname;
// The package is CommonJS (module.exports = factory) while its typings declare a default export.
const ignore = createRequire(import.meta.url)('@balena/dockerignore') as typeof dockerignore.default;

/** The context sources of each COPY/ADD (instructions copying from a stage or image, --from, are skipped). */
function contextSources(dockerfile: string): string[] {
  const instructions = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const sources: string[] = [];
  for (const instruction of instructions) {
    const match = /^(COPY|ADD)\s+(.*)$/i.exec(instruction);
    if (!match) continue;
    let rest = match[2]!.trim();
    const flags: string[] = [];
    while (rest.startsWith('--')) {
      const [flag = '', ...others] = rest.split(/\s+/);
      flags.push(flag);
      rest = others.join(' ');
    }
    if (flags.some((flag) => flag.startsWith('--from='))) continue;
    const words = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
    sources.push(...words.slice(0, -1));
  }
  return sources;
}

function trackedFilesUnder(directory: string): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', directory], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
}

test('the Dockerfile copies sources of the build context', () => {
  const sources = contextSources(readFileSync(`${root}Dockerfile`, 'utf8'));
  assert.ok(sources.includes('src'), `expected the Dockerfile to copy src, found ${sources.join(', ')}`);
});

test('.dockerignore admits every file the Dockerfile copies from the build context', () => {
  const rules = ignore().add(readFileSync(`${root}.dockerignore`, 'utf8').split(/\r?\n/));
  const refused: string[] = [];
  for (const source of contextSources(readFileSync(`${root}Dockerfile`, 'utf8'))) {
    const normalised = source.replace(/^\.\//, '').replace(/\/+$/, '');
    const paths = globSync(normalised, { cwd: root });
    assert.notEqual(paths.length, 0, `the Dockerfile copies ${source}, which is not in the repository`);
    for (const path of paths) {
      const files = statSync(`${root}${path}`).isDirectory() ? [path, ...trackedFilesUnder(path)] : [path];
      refused.push(...files.filter((file) => rules.ignores(file)));
    }
  }
  assert.deepStrictEqual(refused, []);
});

test('the image\'s HEALTHCHECK probes /readyz, so a process without its database or with a stuck loop is unhealthy', () => {
  const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
  const probe = dockerfile.slice(dockerfile.indexOf('HEALTHCHECK'), dockerfile.indexOf('ENTRYPOINT'));
  assert.match(probe, /CMD \["node", "-e", "fetch\(`http:\/\/127\.0\.0\.1:\$\{process\.env\.HERALD_PORT\}\/readyz`\)/);
  assert.doesNotMatch(probe, /healthz/);
});
