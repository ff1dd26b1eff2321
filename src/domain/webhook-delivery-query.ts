import { Type, type Static } from '@sinclair/typebox';

// GET /v1/webhooks/deliveries?status=&msgid=&cursor=&limit= — the query, declared once
// (checked by the route before its handler: http/input-validation.ts). A cursor is the
// last delivery id of the previous page, opaque to clients.

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DEFAULT_DELIVERY_PAGE = 50;
export const MAX_DELIVERY_PAGE = 500;

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)), { errorMessage: `must be one of ${DELIVERY_STATUSES.join(', ')}` })),
  msgid: Type.Optional(Type.String({ pattern: UUID, errorMessage: 'must be a message id', description: 'The deliveries of one message' })),
  cursor: Type.Optional(Type.String({ pattern: UUID, errorMessage: 'must be the next_cursor of a previous page', description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DELIVERY_PAGE, default: DEFAULT_DELIVERY_PAGE, errorMessage: `must be a whole number from 1 to ${MAX_DELIVERY_PAGE}` })),
});
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;
