// `npm run clients:generate`: rewrites the clients' generated files from the OpenAPI
// document of the code as it is (clients/generated-files.ts), and says which changed.
import { readFile, writeFile } from 'node:fs/promises';
import { generatedFiles, heraldDocument } from './generated-files.ts';

const files = await generatedFiles(await heraldDocument());
for (const file of files) {
  const url = new URL(file.path, import.meta.url);
  const before = await readFile(url, 'utf8').catch(() => undefined);
  if (before === file.text) {
    process.stdout.write(`unchanged clients/${file.path}\n`);
    continue;
  }
  await writeFile(url, file.text);
  process.stdout.write(`wrote     clients/${file.path}\n`);
}
