// docs/events.md lists the catalogue word for word, so the documentation cannot drift from the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { EVENT_DESCRIPTIONS, EVENT_TYPES } from '../src/domain/event-catalogue.ts';

test('docs/events.md has one catalogue row per public event type, with its description', async () => {
  const doc = await readFile(new URL('../docs/events.md', import.meta.url), 'utf8');
  const rows = doc.split('\n').filter((line) => /^\| `[a-z]+\.[a-z]+` \|/.test(line));
  assert.deepStrictEqual(rows, EVENT_TYPES.map((type) => `| \`${type}\` | ${EVENT_DESCRIPTIONS[type]} |`));
});
