import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { APP_SECURITY_HEADERS } from './security-headers.ts';
import { sendRejection } from './wire-errors.ts';

// The account web application and operator console (web/, built by Vite into
// web/dist): served at /app by the API process itself. Hashed assets are cached for
// a year (a new build has new names); index.html is revalidated every time, and every
// client route (/app/messages/…) answers with it so the router in the page takes over.
// Every answer under /app carries a CSP that runs only herald's own scripts and styles
// and reaches no other origin (http/security-headers.ts APP_CSP); the email preview
// frames load herald's own /v1/messages/:msgid/preview, which has a CSP of its own that
// runs and loads nothing.

/** Where `npm ci` (the prepare script, web/build.ts) puts the built application. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const YEAR_MS = 365 * 24 * 3600 * 1000;
/** Top-level files of web/dist other than index.html (web/public: the icon): one name, no path. */
const PUBLIC_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>herald</title></head>
<body><h1>The web application is not built</h1><p>Run <code>npm run build:web</code> (npm ci does it), then start herald again.</p></body></html>`;

/** /app, its assets and its client routes; `GET /` goes there. */
export async function webAppRoutes(app: FastifyInstance, root: string = DEFAULT_WEB_ROOT): Promise<void> {
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(APP_SECURITY_HEADERS);
  });
  // A path the file server refuses (one that climbs out of its folder) is simply not there.
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return sendRejection(reply, { code: 'notFound' });
    throw error;
  });
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/app/'));
  app.get('/app', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/app/'));

  const index = join(root, 'index.html');
  if (!existsSync(index) || !existsSync(join(root, 'assets'))) {
    app.get('/app/*', { schema: { hide: true } }, async (_request, reply) => reply.code(503).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT));
    return;
  }

  await app.register(fastifyStatic, {
    root: join(root, 'assets'), prefix: '/app/assets/', index: false, list: false, dotfiles: 'deny',
    immutable: true, maxAge: YEAR_MS, schemaHide: true,
  });

  const page = (reply: FastifyReply) => reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
  app.get<{ Params: { '*': string } }>('/app/*', { schema: { hide: true } }, async (request, reply) => {
    const rest = request.params['*'];
    if (rest !== 'index.html' && PUBLIC_FILE.test(rest) && existsSync(join(root, rest))) {
      return reply.sendFile(rest, root, { maxAge: 3600 * 1000, immutable: false });
    }
    return page(reply);
  });
}
