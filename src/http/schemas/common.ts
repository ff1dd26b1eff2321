import { Type, type TSchema } from '@sinclair/typebox';

// The small pieces every schema of /v1 and /admin/v1 is built from, declared once.

export const Timestamp = (description = 'UTC, ISO-8601') => Type.String({ format: 'date-time', description });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Id = (description: string) => Type.String({ format: 'uuid', description });
