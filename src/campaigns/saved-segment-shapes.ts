import { Type, type Static } from '@sinclair/typebox';
import { FilterSchema, SegmentCountSchema } from './segment-filter.ts';
import { Id, Timestamp } from './wire-fields.ts';

// The wire shapes of /v1/segments (saved segments): a name and the audience of
// POST /v1/segments/count.

export const SEGMENT_NAME_MAX = 200;
/** Saved segments one account keeps at most (all of them fit one answer). */
export const MAX_SAVED_SEGMENTS = 500;

export const SavedSegmentBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: SEGMENT_NAME_MAX, description: 'The account\'s once; trimmed' }),
  ...SegmentCountSchema.properties,
}, { additionalProperties: false });
export type SavedSegmentBody = Static<typeof SavedSegmentBodySchema>;

export const SavedSegmentViewSchema = Type.Object({
  segment_id: Id('The segment'),
  name: Type.String(),
  lists: Type.Array(Type.String()),
  exclude_lists: Type.Array(Type.String()),
  filter: Type.Union([FilterSchema, Type.Null()], { description: 'The filter, null when there is none' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SavedSegmentView = Static<typeof SavedSegmentViewSchema>;

export const SavedSegmentCollectionSchema = Type.Object({ segments: Type.Array(SavedSegmentViewSchema) });

export const SegmentSampleSchema = Type.Object({
  contacts: Type.Array(Type.Object({
    contact_id: Id('The contact'), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]),
    attributes: Type.Record(Type.String(), Type.Unknown()),
  })),
});
