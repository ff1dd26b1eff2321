import { CHANNELS, type Channel } from '../domain/account.ts';
import { parseCount, queryFields } from '../domain/account-input.ts';
import { ok, type Result } from '../domain/result.ts';
import { acceptedPerDay, DAY_MS, outcomesPerDay } from '../store/usage.ts';
import type { AppDeps } from './deps.ts';

// GET /v1/usage: the last `days` UTC days (today last), each with what was accepted and
// what became of it per channel, today's sends, and the email bounce and complaint rates
// over the window.

export const USAGE_DAYS_DEFAULT = 30;
export const USAGE_DAYS_MAX = 90;

export interface DayCounts { accepted: number; delivered: number; bounced: number; failed: number }
export type UsageDay = { readonly date: string } & Readonly<Record<Channel, DayCounts>>;
export interface Usage {
  readonly days: readonly UsageDay[];
  readonly today: Readonly<Record<Channel, number>>;
  readonly bounceRate: number;
  readonly complaintRate: number;
}

const zero = (): DayCounts => ({ accepted: 0, delivered: 0, bounced: 0, failed: 0 });

/** GET /v1/usage?days=: 1 to 90 days, 30 when absent. */
export async function accountUsage(deps: AppDeps, accountId: string, rawQuery: unknown): Promise<Result<Usage>> {
  const days = parseCount(queryFields(rawQuery)('days'), 'days', USAGE_DAYS_MAX, USAGE_DAYS_DEFAULT);
  return days.ok ? ok(await usageOver(deps, accountId, days.value)) : days;
}

async function usageOver(deps: AppDeps, accountId: string, days: number): Promise<Usage> {
  const today = Math.floor(deps.clock() / DAY_MS);
  const first = today - days + 1;
  const since = first * DAY_MS;
  const [accepted, outcomes] = await Promise.all([acceptedPerDay(deps.db, accountId, since), outcomesPerDay(deps.db, accountId, since)]);
  const byDay = new Map<number, Record<Channel, DayCounts>>();
  for (let day = first; day <= today; day++) byDay.set(day, { email: zero(), sms: zero(), whatsapp: zero() });
  let complaints = 0;
  for (const row of [...accepted, ...outcomes]) {
    if (row.kind === 'complained') {
      if (row.channel === 'email') complaints += row.count;
      continue;
    }
    const counts = byDay.get(row.day)?.[row.channel];
    if (counts !== undefined) counts[row.kind] += row.count;
  }
  const list = [...byDay.entries()].map(([day, counts]) => ({ date: new Date(day * DAY_MS).toISOString().slice(0, 10), ...counts }));
  const emailAccepted = list.reduce((n, d) => n + d.email.accepted, 0);
  const emailBounced = list.reduce((n, d) => n + d.email.bounced, 0);
  const last = byDay.get(today) ?? { email: zero(), sms: zero(), whatsapp: zero() };
  return {
    days: list,
    today: Object.fromEntries(CHANNELS.map((c) => [c, last[c].accepted])) as Record<Channel, number>,
    bounceRate: emailAccepted === 0 ? 0 : Math.min(1, emailBounced / emailAccepted),
    complaintRate: emailAccepted === 0 ? 0 : Math.min(1, complaints / emailAccepted),
  };
}
