// The documentation that repeats the code is checked against it, so it cannot drift:
// the event catalogue in docs/events.md, the configuration and limits tables in the README.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { EVENT_DESCRIPTIONS, EVENT_TYPES } from '../src/domain/event-catalogue.ts';
import { configTable } from '../src/cli/config-table.ts';
import { limitsMarkdown } from '../src/http/limits-table.ts';

test('docs/events.md has one catalogue row per public event type, with its description', async () => {
  const doc = await readFile(new URL('../docs/events.md', import.meta.url), 'utf8');
  const rows = doc.split('\n').filter((line) => /^\| `[a-z]+\.[a-z_]+` \|/.test(line));
  assert.deepStrictEqual(rows, EVENT_TYPES.map((type) => `| \`${type}\` | ${EVENT_DESCRIPTIONS[type]} |`));
});

test('the README configuration table is the one `herald config` prints', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('| Variable | Default | Description |');
  const end = readme.indexOf('\n\n', start);
  assert.equal(readme.slice(start, end + 1), configTable());
});

test('the README limits table is the one rendered from the limits table', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('| Limit | Default | Setting | Past it | Applies to | Why this default |');
  const end = readme.indexOf('\n\n', start);
  assert.equal(readme.slice(start, end + 1), limitsMarkdown());
});
