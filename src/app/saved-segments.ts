import {
  MAX_SAVED_SEGMENTS, SavedSegmentBodySchema, type SavedSegmentView,
} from '../campaigns/saved-segment-shapes.ts';
import { parseSegmentRequest, type SegmentRequest } from '../campaigns/segment-filter.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { checkValue } from '../domain/schema-check.ts';
import {
  countSavedSegments, deleteSavedSegment, findSavedSegment, insertSavedSegment, listSavedSegments, savedSegmentNamed, updateSavedSegment,
  type SavedSegment,
} from '../store/saved-segments.ts';
import type { AppDeps } from './deps.ts';
import { ownLists } from './segments.ts';

// /v1/segments: audiences saved by name (docs/campaigns.md "Saved segments"). A saved
// segment is a starting point: a campaign copies its lists and filter when made, so
// changing or deleting the segment later changes no campaign.

const iso = (ms: number): string => new Date(ms).toISOString();

export function savedSegmentView(s: SavedSegment): SavedSegmentView {
  return {
    segment_id: s.id, name: s.name, lists: [...s.segment.lists], exclude_lists: [...(s.segment.exclude_lists ?? [])],
    filter: s.segment.filter ?? null, created_at: iso(s.createdAt), updated_at: iso(s.updatedAt),
  };
}

/** A body's name and audience, checked as POST /v1/segments/count checks an audience, its lists the account's. */
async function parseBody(deps: AppDeps, accountId: string, body: unknown): Promise<Result<{ name: string; segment: SegmentRequest }>> {
  const { name, ...audience } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const named = checkValue(SavedSegmentBodySchema.properties.name, name, 'name');
  if (!named.ok) return named;
  const trimmed = named.value.trim();
  if (trimmed === '') return reject('invalidField', { detail: 'name: must not be blank' });
  const segment = parseSegmentRequest(audience);
  if (!segment.ok) return segment;
  const lists = await ownLists(deps.db, accountId, segment.value);
  return lists.ok ? ok({ name: trimmed, segment: lists.value }) : lists;
}

const nameTaken = (id: string) => reject('conflict', { detail: `name: another segment (${id}) has it` });

/** POST /v1/segments. */
export async function createSavedSegment(deps: AppDeps, accountId: string, body: unknown): Promise<Result<SavedSegmentView>> {
  const parsed = await parseBody(deps, accountId, body);
  if (!parsed.ok) return parsed;
  if ((await countSavedSegments(deps.db, accountId)) >= MAX_SAVED_SEGMENTS) {
    return reject('quotaExceeded', { detail: `an account keeps at most ${MAX_SAVED_SEGMENTS} saved segments` });
  }
  const holder = await savedSegmentNamed(deps.db, accountId, parsed.value.name);
  if (holder !== undefined) return nameTaken(holder);
  const now = deps.clock();
  const segment: SavedSegment = { id: deps.newId(), accountId, ...parsed.value, createdAt: now, updatedAt: now };
  try {
    await insertSavedSegment(deps.db, segment);
  } catch (error) {
    // Two requests raced past the check: the unique index decided.
    const winner = await savedSegmentNamed(deps.db, accountId, parsed.value.name);
    if (winner !== undefined) return nameTaken(winner);
    throw error;
  }
  return ok(savedSegmentView(segment));
}

/** PUT /v1/segments/:segment_id: the name and audience replaced. */
export async function replaceSavedSegment(deps: AppDeps, accountId: string, id: string, body: unknown): Promise<Result<SavedSegmentView>> {
  const stored = await findSavedSegment(deps.db, accountId, id);
  if (stored === undefined) return reject('notFound');
  const parsed = await parseBody(deps, accountId, body);
  if (!parsed.ok) return parsed;
  const holder = await savedSegmentNamed(deps.db, accountId, parsed.value.name, id);
  if (holder !== undefined) return nameTaken(holder);
  const next: SavedSegment = { ...stored, ...parsed.value, updatedAt: deps.clock() };
  await updateSavedSegment(deps.db, next);
  return ok(savedSegmentView(next));
}

export async function getSavedSegment(deps: AppDeps, accountId: string, id: string): Promise<Result<SavedSegmentView>> {
  const found = await findSavedSegment(deps.db, accountId, id);
  return found === undefined ? reject('notFound') : ok(savedSegmentView(found));
}

/** GET /v1/segments: every saved segment of the account, by name (at most MAX_SAVED_SEGMENTS exist). */
export async function listAccountSavedSegments(deps: AppDeps, accountId: string): Promise<{ segments: SavedSegmentView[] }> {
  return { segments: (await listSavedSegments(deps.db, accountId, MAX_SAVED_SEGMENTS)).map(savedSegmentView) };
}

export async function removeSavedSegment(deps: AppDeps, accountId: string, id: string): Promise<Result<null>> {
  return (await deleteSavedSegment(deps.db, accountId, id)) ? ok(null) : reject('notFound');
}
