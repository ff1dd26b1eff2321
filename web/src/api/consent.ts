// A person's consent per channel, from GET /v1/consent?address= (issue 23's ledger): read
// leniently, and nothing at all while this herald has no such route (404).
import { api, ApiError } from './http.ts';

/** One channel's consent as the page shows it: opted out or in, and since when. */
export interface ChannelConsent {
  readonly channel: string;
  readonly optedOut: boolean;
  readonly at: string | null;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;

/**
 * The channels of GET /v1/consent's answer, read leniently: `channels` as an array of
 * { channel, state } or an object of channel → { state } (`state` opted_out | opted_in,
 * or `opted_out: true`). Whatever else it holds (the history) is the ledger page's.
 */
export function readConsent(body: unknown): ChannelConsent[] {
  const channels = record(body)?.['channels'];
  const entries: [string, unknown][] = Array.isArray(channels)
    ? channels.map((entry) => [String(record(entry)?.['channel'] ?? ''), entry])
    : Object.entries(record(channels) ?? {});
  return entries.flatMap(([channel, value]) => {
    const state = record(value);
    if (channel === '' || state === undefined) return [];
    const optedOut = state['state'] === 'opted_out' || state['opted_out'] === true;
    const at = typeof state['at'] === 'string' ? state['at'] : typeof state['since'] === 'string' ? state['since'] : null;
    return [{ channel, optedOut, at }];
  });
}

/** The person's consent per channel; null when this herald has no consent ledger to ask (404). */
export const consentQuery = (person: string) => ({
  queryKey: ['consent', person],
  queryFn: async (): Promise<ChannelConsent[] | null> => {
    try {
      return readConsent(await api<unknown>('/v1/consent', { query: { address: person } }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  },
  retry: false,
}) as const;
