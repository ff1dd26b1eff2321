import { applicationError, authenticationError, rateLimitError } from '../schemas/errors.ts';

// The answers every /v1 route of the campaign audience (lists, contacts, segments) can
// give besides its own: herald's field errors, authentication, scope, rate, internal.

const fieldError = {
  type: 'object', required: ['message'],
  properties: {
    message: { type: 'string' },
    detail: { type: 'string', description: 'Which field, and what is wrong with it' },
    error: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } }, description: 'The offending addresses' },
  },
} as const;

export const audienceErrors = {
  401: { description: 'The key lacks the scope (`API key not authorized.`), or `Domain not permitted. err 2`, `No messages left, please buy more messages`, `current service is not active`', ...applicationError },
  403: { description: 'Authentication failed', ...authenticationError },
  429: { description: 'Request rate above the account\'s limit', ...rateLimitError },
  500: { description: 'Internal failure', anyOf: [applicationError, authenticationError] },
} as const;

export const invalidBody = (texts: string) => ({ 400: { description: texts, ...fieldError } }) as const;

export const notFound = (what: string) => ({ 404: { description: `${what} (\`Not found\`, with a \`detail\` naming a list id of the body)`, ...fieldError } }) as const;

export const idParams = (name: string, description: string) =>
  ({ type: 'object', required: [name], properties: { [name]: { type: 'string', description } } }) as const;
