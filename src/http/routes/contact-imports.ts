import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { getImport, importCharsetOf, importFormatOf, receiveImport } from '../../app/contact-imports.ts';
import { ImportAcceptedSchema, ImportViewSchema } from '../../campaigns/contact-shapes.ts';
import { callerOf, sendingMode } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { applicationError } from '../schemas/errors.ts';
import { audienceErrors, idParams, invalidBody, notFound } from './campaign-route-docs.ts';
import type { RouteDeps } from '../route-deps.ts';

// /v1/contacts/imports (scope `email`): bulk import. Registered in a context of its
// own inside /v1 (the API-key hook applies): here the body is not parsed but handed
// over as a stream, stored as it arrives (app/contact-imports.ts), and bounded by
// HERALD_IMPORT_BODY_LIMIT instead of HERALD_BODY_LIMIT.

const tags = ['contacts'];

export function contactImportRoutes(app: FastifyInstance, { app: deps, importBodyLimitBytes: limitBytes }: RouteDeps): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post<{ Querystring: { list_id?: string } }>('/v1/contacts/imports', {
    schema: {
      summary: 'Import up to 1,000,000 contacts (CSV or a JSON array); answered at once, read in the background', tags,
      description: 'CSV (`text/csv`): a header row with `email`, optional `name`, every other column an attribute. JSON (`application/json`): '
        + '[{"email", "name"?, "attributes"?}, …]. Follow the import at GET /v1/contacts/imports/{import_id}.',
      querystring: { type: 'object', properties: { list_id: { type: 'string', description: 'A list every row joins (by the consent rules; an import never re-subscribes)' } } },
      body: {
        content: {
          'text/csv': { schema: { type: 'string' } },
          'application/json': { schema: { type: 'array', items: { type: 'object', required: ['email'], properties: { email: { type: 'string' }, name: { type: ['string', 'null'] }, attributes: { type: 'object' } } } } },
        },
      },
      response: {
        202: ImportAcceptedSchema,
        ...invalidBody('`The import has no rows`, `The CSV header has no email column`, `A JSON import must be an array of contacts`, or a header column that is no attribute name (with `detail`)'),
        ...notFound('list_id is not a list of this account'),
        413: { description: 'Over HERALD_IMPORT_BODY_LIMIT (`Request body is too large`)', ...applicationError },
        415: { description: 'Neither text/csv nor application/json (`Unsupported Media Type, send text/csv or application/json`)', ...applicationError },
        ...audienceErrors,
      },
    },
    config: { access: { scope: 'email', access: 'write' } },
  }, async (request, reply) => {
    const format = importFormatOf(request.headers['content-type']);
    if (format === undefined) return sendRejection(reply, { code: 'importMediaType' });
    const charset = importCharsetOf(request.headers['content-type']);
    if (charset === null) return sendRejection(reply, { code: 'invalidField', detail: 'the charset of Content-Type is not one herald can decode' });
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limitBytes) return sendRejection(reply, { code: 'bodyTooLarge' });
    const listId = typeof request.query.list_id === 'string' ? request.query.list_id : undefined;
    // Not destroyed when the import stops reading (too large, a bad header): the answer must still reach the client.
    const body = (request.body as Readable).iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
    const received = await receiveImport(deps, callerOf(request).account, { format, charset, listId, body, limitBytes, mode: sendingMode(request) });
    return received.ok ? reply.code(202).send(received.value) : sendRejection(reply, received.rejection);
  });

  app.get<{ Params: { import_id: string } }>('/v1/contacts/imports/:import_id', {
    schema: {
      summary: 'An import\'s progress: rows read, contacts created and updated, rows refused (the first 100 with why)', tags, params: idParams('import_id', 'The import'),
      response: { 200: ImportViewSchema, ...notFound('No such import in this account'), ...audienceErrors },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => sendResult(reply, await getImport(deps, callerOf(request).account.id, request.params.import_id)));
}
