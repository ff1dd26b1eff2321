import { parseSegmentRequest, type SegmentRequest } from '../campaigns/segment-filter.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import type { Executor } from '../store/database.ts';
import { findLists } from '../store/lists.ts';
import { countSegment, segmentPage } from '../store/segments.ts';
import type { AppDeps } from './deps.ts';
import { readBudget, withinReadLimit } from './heavy-reads.ts';

// POST /v1/segments/count: how many contacts a campaign's audience holds now, fast
// enough to show as a person edits it (docs/performance.md has the figures).

export async function countAccountSegment(deps: AppDeps, accountId: string, body: unknown): Promise<Result<{ contacts: number }>> {
  const parsed = parseSegmentRequest(body);
  if (!parsed.ok) return parsed;
  const segment = parsed.value;
  const lists = await ownLists(deps.db, accountId, segment);
  if (!lists.ok) return lists;
  const budget = readBudget(deps);
  return withinReadLimit(deps, async () => ({ contacts: await countSegment(deps.db, accountId, segment, deps.clock(), budget()) }));
}

/** The segment when every list it names is the account's; else 404 naming the first that is not. */
export async function ownLists(db: Executor, accountId: string, segment: SegmentRequest): Promise<Result<SegmentRequest>> {
  const found = await findLists(db, accountId, [...segment.lists, ...(segment.exclude_lists ?? [])]);
  for (const [field, ids] of [['lists', segment.lists], ['exclude_lists', segment.exclude_lists ?? []]] as const) {
    const missing = ids.findIndex((id) => !found.has(id));
    if (missing >= 0) return reject('notFound', { detail: `${field}[${missing}] is not a list of this account` });
  }
  return ok(segment);
}

/** Contacts POST /v1/segments/sample answers at most: enough to choose one to preview a campaign as. */
export const SEGMENT_SAMPLE = 20;

export interface SegmentSample {
  readonly contacts: { contact_id: string; email: string; name: string | null; attributes: Record<string, unknown> }[];
}

/**
 * POST /v1/segments/sample: the segment's first contacts (among the account's first
 * SEGMENT_SCAN_WINDOW, so the read stays bounded), to preview a campaign as one of them.
 */
export async function sampleAccountSegment(deps: AppDeps, accountId: string, body: unknown): Promise<Result<SegmentSample>> {
  const parsed = parseSegmentRequest(body);
  if (!parsed.ok) return parsed;
  const lists = await ownLists(deps.db, accountId, parsed.value);
  if (!lists.ok) return lists;
  return withinReadLimit(deps, async () => {
    const page = await segmentPage(deps.db, accountId, parsed.value, { limit: SEGMENT_SAMPLE }, deps.clock());
    return { contacts: page.contacts.map((c) => ({ contact_id: c.id, email: c.email, name: c.name, attributes: { ...c.attributes } })) };
  });
}
