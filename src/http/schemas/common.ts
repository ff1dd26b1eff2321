import { Type, type TSchema } from '@sinclair/typebox';

// The small pieces every schema of /v1 and /admin/v1 is built from, declared once.

export const Timestamp = (description = 'UTC, ISO-8601') => Type.String({ format: 'date-time', description });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Id = (description: string) => Type.String({ format: 'uuid', description });

/** A cursor-paged query's own fields (after the route's filters): the previous page's next_cursor, and a page size. */
export const pageQueryFields = (maxLimit: number) => ({
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit, default: 50 })),
});


/**
 * A wire type as a use case may hold it (readonly all the way down): a view built in app/
 * is checked against its schema's Static type with an annotation of this type.
 */
export type Answer<T> = T extends readonly (infer U)[] ? readonly Answer<U>[] : T extends object ? { readonly [K in keyof T]: Answer<T[K]> } : T;
