import { Type } from '@sinclair/typebox';

// Field schemas the campaign shapes share: ids, times, senders.

/** A herald id (UUIDv7) as the API shows it; anything else is no id of this account. */
export const Id = (description: string) =>
  Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', errorMessage: 'must be an id', description });

export const Timestamp = Type.String({ format: 'date-time', description: 'UTC, ISO-8601' });

/** A sender: the From of emails herald sends for the account. */
export const Sender = Type.Object({
  email: Type.String({ maxLength: 254, description: 'An address of a verified sender domain of the account' }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
}, { additionalProperties: false });

/** Most list ids one request may name. */
export const MAX_LISTS_PER_REQUEST = 50;

export const ListIds = (description: string) => Type.Array(Id('A list of the account'), { maxItems: MAX_LISTS_PER_REQUEST, description });

/** One of a closed set of texts. */
export const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), description === undefined ? {} : { description });
