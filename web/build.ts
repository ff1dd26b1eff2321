// Builds the web application into web/dist (served by herald at /app). Run by npm's
// `prepare` (so `npm ci` builds it) and by the browser tests with --if-stale (a build
// only when a source is newer than web/dist/index.html). Vite is a dev dependency: an
// install without them (`npm ci --omit=dev`) skips the build and says so.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('.', import.meta.url));
const root = join(web, '..');
const output = join(web, 'dist', 'index.html');
// What the bundle is made of: the app, its config, and the server modules it imports values from.
const SOURCES = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'src/domain', 'package-lock.json'];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

export function isStale(): boolean {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return SOURCES.some((source) => newest(join(root, source)) > built);
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);

let vite: typeof import('vite');
try {
  vite = await import('vite');
} catch {
  console.warn('web/build.ts: vite is not installed (an install without dev dependencies); /app is served only after `npm ci && npm run build:web`.');
  process.exit(0);
}
await vite.build({ configFile: join(web, 'vite.config.ts'), logLevel: process.argv.includes('--quiet') ? 'warn' : 'info' });
