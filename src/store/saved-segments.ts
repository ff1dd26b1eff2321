import type { Selectable } from 'kysely';
import type { SegmentRequest } from '../campaigns/segment-filter.ts';
import type { Executor, SegmentsTable } from './database.ts';

// An account's saved segments: a name and an audience. Every query is scoped by the account.

export interface SavedSegment {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly segment: SegmentRequest;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const toSegment = (row: Selectable<SegmentsTable>): SavedSegment => ({
  id: row.id, accountId: row.account_id, name: row.name, segment: JSON.parse(row.definition) as SegmentRequest,
  createdAt: Number(row.created_at), updatedAt: Number(row.updated_at),
});

export async function insertSavedSegment(db: Executor, segment: SavedSegment): Promise<void> {
  await db.insertInto('segments').values({
    id: segment.id, account_id: segment.accountId, name: segment.name, definition: JSON.stringify(segment.segment),
    created_at: segment.createdAt, updated_at: segment.updatedAt,
  }).execute();
}

export async function updateSavedSegment(db: Executor, segment: SavedSegment): Promise<void> {
  await db.updateTable('segments').set({ name: segment.name, definition: JSON.stringify(segment.segment), updated_at: segment.updatedAt })
    .where('id', '=', segment.id).where('account_id', '=', segment.accountId).execute();
}

export async function findSavedSegment(db: Executor, accountId: string, id: string): Promise<SavedSegment | undefined> {
  const row = await db.selectFrom('segments').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toSegment(row);
}

/** The id of the account's segment with this name, other than `except`. */
export async function savedSegmentNamed(db: Executor, accountId: string, name: string, except?: string): Promise<string | undefined> {
  let q = db.selectFrom('segments').select('id').where('account_id', '=', accountId).where('name', '=', name);
  if (except !== undefined) q = q.where('id', '<>', except);
  return (await q.executeTakeFirst())?.id;
}

/** The account's segments by name, at most `limit`. */
export async function listSavedSegments(db: Executor, accountId: string, limit: number): Promise<SavedSegment[]> {
  const rows = await db.selectFrom('segments').selectAll().where('account_id', '=', accountId).orderBy('name').orderBy('id').limit(limit).execute();
  return rows.map(toSegment);
}

export async function countSavedSegments(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('segments').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function deleteSavedSegment(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('segments').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return result.numDeletedRows === 1n;
}
