// docs/operations.md "Caches" lists every cache in src with its bound: one row per
// `new BoundedCache` of each file, so a cache added without its row fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';

const ROOT = new URL('../../', import.meta.url);
const THE_MODULE = 'src/cache/bounded-cache.ts';

/** Caches made per file of src: its number of `new BoundedCache`. */
async function cachesInSrc(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const files = await readdir(new URL('src/', ROOT), { recursive: true });
  for (const file of files.filter((f) => f.endsWith('.ts')).map((f) => `src/${f}`).sort()) {
    if (file === THE_MODULE) continue;
    const made = (await readFile(new URL(file, ROOT), 'utf8')).match(/new BoundedCache\b/g)?.length ?? 0;
    if (made > 0) counts[file] = made;
  }
  return counts;
}

/** Rows per file of the table in docs/operations.md "Caches" (its second column). */
async function rowsInDocs(): Promise<Record<string, number>> {
  const doc = await readFile(new URL('docs/operations.md', ROOT), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Caches\n'), doc.indexOf('\n## ', doc.indexOf('\n## Caches\n') + 1));
  const counts: Record<string, number> = {};
  for (const line of section.split('\n')) {
    const where = /^\| [^|]+ \| `(src\/[^`]+)` \|/.exec(line)?.[1];
    if (where !== undefined) counts[where] = (counts[where] ?? 0) + 1;
  }
  return counts;
}

test('every cache in src has its row in docs/operations.md "Caches", and every row its cache', async () => {
  const [made, rows] = await Promise.all([cachesInSrc(), rowsInDocs()]);
  assert.ok(Object.keys(made).length > 0);
  assert.deepStrictEqual(rows, made);
});

test('no file of src but the cache module imports lru-cache', async () => {
  const files = await readdir(new URL('src/', ROOT), { recursive: true });
  const importers: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.ts')).map((f) => `src/${f}`).sort()) {
    if (/from 'lru-cache'/.test(await readFile(new URL(file, ROOT), 'utf8'))) importers.push(file);
  }
  assert.deepStrictEqual(importers, [THE_MODULE]);
});
