// The clients follow the API: the checked-in schema.d.ts is what openapi-typescript makes
// from the document the code builds now, and both clients carry the document's
// info.version. After a change of the API: `npm run clients:generate` (clients/README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedFiles, heraldDocument, type GeneratedFile } from '../../clients/generated-files.ts';
import { REPO } from '../support/child-process.ts';

// One document and one generation (about four seconds) for both tests.
const expected = heraldDocument().then(generatedFiles);

async function checkedIn(file: GeneratedFile): Promise<string> {
  return readFile(join(REPO, 'clients', file.path), 'utf8');
}

const STALE = 'is stale: run `npm run clients:generate` and commit what it writes';

test('the checked-in schema.d.ts is what openapi-typescript makes from the current OpenAPI document', async () => {
  const schema = (await expected).find((file) => file.path === 'typescript/src/schema.d.ts');
  assert.ok(schema !== undefined);
  assert.ok((await checkedIn(schema)) === schema.text, `clients/${schema.path} ${STALE}`);
});

test('both clients carry the OpenAPI document\'s info.version', async () => {
  const versioned = (await expected).filter((file) => file.path !== 'typescript/src/schema.d.ts');
  assert.deepStrictEqual(versioned.map((file) => file.path), ['typescript/package.json', 'python/pyproject.toml', 'python/herald/version.py']);
  for (const file of versioned) assert.equal(await checkedIn(file), file.text, `clients/${file.path} ${STALE}`);
});
