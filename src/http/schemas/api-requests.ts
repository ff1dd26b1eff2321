// GET /v1/api-keys/:keyId/requests: the requests one key made (app/api-request-log.ts).
import { Type, type Static } from '@sinclair/typebox';
import { Id, Timestamp } from './common.ts';

export const ApiRequestParams = Type.Object({ keyId: Type.String({ format: 'uuid', errorMessage: 'must be a key id' }) });
export type ApiRequestParams = Static<typeof ApiRequestParams>;

export const ApiRequestQuery = Type.Object({
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}_[0-9a-f-]{36}$', errorMessage: 'must be the next_cursor of a previous page', description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, errorMessage: 'must be a whole number from 1 to 200' })),
});
export type ApiRequestQuery = Static<typeof ApiRequestQuery>;

export const ApiRequestPage = Type.Object({
  data: Type.Array(Type.Object({
    id: Id('The entry'),
    method: Type.String({ description: 'GET, POST, PUT, PATCH or DELETE' }),
    path: Type.String({ description: 'The path asked for, without its query' }),
    status: Type.Integer({ description: 'The answer\'s HTTP status' }),
    duration_ms: Type.Integer({ minimum: 0, description: 'How long herald took to answer' }),
    request_id: Type.String({ description: 'The answer\'s x-request-id' }),
    created_at: Timestamp(),
  }), { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next (older) page; null on the last' }),
  total: Type.Integer({ minimum: 0, description: 'How many requests the key made in the kept period (30 days), at most 10,000' }),
  total_capped: Type.Boolean({ description: 'More than `total` (counting stopped there)' }),
});
export type ApiRequestPage = Static<typeof ApiRequestPage>;
