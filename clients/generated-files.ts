// What `npm run clients:generate` writes: the TypeScript client's schema.d.ts, made by
// openapi-typescript from herald's OpenAPI document, and the document's info.version in
// both clients' package files. The document is built in this process from the routes
// (an in-memory store, no network, no listening socket), so generation needs no running
// herald. test/clients/freshness.test.ts compares these files with the checked-in ones.
import { readFile } from 'node:fs/promises';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { loadConfig } from '../src/config.ts';
import { createService } from '../src/service.ts';

const CLIENTS = new URL('./', import.meta.url);

/** One file of the clients, its path relative to clients/, and the text the generator gives it. */
export interface GeneratedFile {
  readonly path: string;
  readonly text: string;
}

/** The document as GET /openapi.json answers it on a herald with the default configuration. */
export async function heraldDocument(): Promise<OpenAPI3> {
  // Only the store and the admin token are set: the document must not depend on the machine it is made on.
  const config = loadConfig({ HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_ADMIN_TOKEN: 'clients-generator-token-0123456789' });
  const service = await createService(config, { logger: false, worker: false, imports: false });
  try {
    const answer = await service.http.inject({ method: 'GET', url: '/openapi.json' });
    if (answer.statusCode !== 200) throw new Error(`GET /openapi.json answered ${answer.statusCode}: ${answer.body.slice(0, 200)}`);
    return answer.json<OpenAPI3>();
  } finally {
    await service.close();
  }
}

/** The version a client must carry: the document's info.version. */
export function documentVersion(document: OpenAPI3): string {
  const version = document.info?.version;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`info.version is not a release number: ${String(version)}`);
  return version;
}

/** openapi-typescript's output for the document, as its command line writes it. */
export async function schemaTypes(document: OpenAPI3): Promise<string> {
  return `${COMMENT_HEADER}${astToString(await openapiTS(document))}`;
}

/** `text` with the first match of `pattern` (a version in its first group's place) set to `version`. */
function withVersion(text: string, pattern: RegExp, version: string, path: string): string {
  if (!pattern.test(text)) throw new Error(`clients/${path}: no version line matches ${pattern}`);
  return text.replace(pattern, (_line, before: string, _old: string, after: string) => `${before}${version}${after}`);
}

/** Every generated file with the text it must have for `document`. */
export async function generatedFiles(document: OpenAPI3): Promise<GeneratedFile[]> {
  const version = documentVersion(document);
  const versioned = async (path: string, pattern: RegExp): Promise<GeneratedFile> =>
    ({ path, text: withVersion(await readFile(new URL(path, CLIENTS), 'utf8'), pattern, version, path) });
  return [
    { path: 'typescript/src/schema.d.ts', text: await schemaTypes(document) },
    await versioned('typescript/package.json', /^(  "version": ")([^"]*)(",)$/m),
    await versioned('python/pyproject.toml', /^(version = ")([^"]*)(")$/m),
    await versioned('python/herald/version.py', /^(__version__ = ")([^"]*)(")$/m),
  ];
}
