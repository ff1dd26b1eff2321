import Fastify from 'fastify';
import { serveParent } from './child.ts';

// The baseline: a bare Fastify 5 server in a process of its own, with the routes herald
// answers for sends. Each parses the JSON body with Fastify's own parser (as herald's
// routes do) and answers 200 with a small JSON object — no logger, no authentication,
// no validation, no store. GET /v1/messages (the messages-log baseline) answers a page
// of 50 messages shaped as herald's, built once.

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
const page = {
  data: Array.from({ length: 50 }, (_, i) => ({
    msgid: `01a20b10-99a9-76dc-bfa4-${String(i).padStart(12, '0')}`, channel: 'email', status: 'delivered', recipient: `user${i}@example.org`,
    created_at: '2030-01-01T00:00:00.000Z', updated_at: '2030-01-01T00:00:01.000Z',
  })),
  next_cursor: '01a20b10-99a9-76dc-bfa4-000000000049',
};
app.get('/v1/messages', async () => page);
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
