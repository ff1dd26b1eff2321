// The error bodies of the API: herald's own `{message, detail?}` (ErrorBody: every
// refusal of /v1 and /admin/v1 outside the interface's own shapes, validation failures
// included), and the interface's shapes (../shared/spec/interface-v1.md "Error body shapes").
import { Type, type Static } from '@sinclair/typebox';

export const ErrorBody = Type.Object({
  message: Type.String(),
  detail: Type.Optional(Type.String({ description: '`<field path>: <what is wrong>`, e.g. `ip_allow_list[2]: must be an IPv4 or IPv6 address or CIDR range`' })),
});
export type ErrorBody = Static<typeof ErrorBody>;

export const applicationError = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } as const;
export const validationError = {
  type: 'object', required: ['message'],
  properties: {
    message: { type: 'string' },
    error: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } },
  },
} as const;
export const authenticationError = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } as const;
export const rateLimitError = {
  type: 'object', required: ['success', 'message', 'error'],
  properties: { success: { type: 'boolean', const: false }, message: { type: 'string' }, error: { type: 'string', const: 'RATE_LIMIT_EXCEEDED' } },
} as const;

/** The error responses every /v1 operation can give, as the spec lists them. */
export const commonErrors = {
  400: { description: 'Invalid request (see the spec\'s error table)', ...validationError },
  401: { description: 'Account or key not allowed to do this', ...applicationError },
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
  500: { description: 'Internal failure while validating authentication', ...authenticationError },
} as const;
