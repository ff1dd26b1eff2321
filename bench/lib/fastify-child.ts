import Fastify from 'fastify';
import { serveParent } from './child.ts';

// The accept baseline: a bare Fastify 5 server in a process of its own, with the
// routes herald answers for sends. Each parses the JSON body with Fastify's own
// parser (as herald's routes do) and answers 200 with a small JSON object — no
// logger, no authentication, no validation, no store.

export interface FastifyReady {
  readonly port: number;
}

const ROUTES = ['/v1/email', '/v1/sms/send', '/v1/whatsapp/sendTemplateMessage'];

const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
for (const url of ROUTES) {
  app.post(url, async (request) => {
    // Touch the parsed body, so the parse cannot be skipped as unused.
    const fields = typeof request.body === 'object' && request.body !== null ? Object.keys(request.body).length : 0;
    return { result: 'ok', fields };
  });
}
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('the baseline is not listening on a TCP port');

serveParent(
  { port: address.port } satisfies FastifyReady,
  {
    /** process.memoryUsage(): what the resident set is made of (V8 heap, external, array buffers). */
    async memoryUsage() {
      return process.memoryUsage();
    },
  },
  () => app.close(),
);
