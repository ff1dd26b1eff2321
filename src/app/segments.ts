import { parseSegmentRequest } from '../campaigns/segment-filter.ts';
import { reject, type Result } from '../domain/result.ts';
import { findLists } from '../store/lists.ts';
import { countSegment } from '../store/segments.ts';
import type { AppDeps } from './deps.ts';
import { readBudget, withinReadLimit } from './heavy-reads.ts';

// POST /v1/segments/count: how many contacts a campaign's audience holds now, fast
// enough to show as a person edits it (docs/performance.md has the figures).

export async function countAccountSegment(deps: AppDeps, accountId: string, body: unknown): Promise<Result<{ contacts: number }>> {
  const parsed = parseSegmentRequest(body);
  if (!parsed.ok) return parsed;
  const segment = parsed.value;
  const named = [...segment.lists, ...(segment.exclude_lists ?? [])];
  const found = await findLists(deps.db, accountId, named);
  for (const [field, ids] of [['lists', segment.lists], ['exclude_lists', segment.exclude_lists ?? []]] as const) {
    const missing = ids.findIndex((id) => !found.has(id));
    if (missing >= 0) return reject('notFound', { detail: `${field}[${missing}] is not a list of this account` });
  }
  const budget = readBudget(deps);
  return withinReadLimit(deps, async () => ({ contacts: await countSegment(deps.db, accountId, segment, deps.clock(), budget()) }));
}
