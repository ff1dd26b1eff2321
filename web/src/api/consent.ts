// A person's consent per channel, from GET /v1/consent?address= (the consent ledger):
// what the Conversations page shows as badges. Nothing while herald answers 404.
import { api, ApiError } from './http.ts';

/** What the page says of one channel: opted out (since when), or opted back in after a change on record. */
export interface ChannelConsent {
  readonly channel: string;
  readonly optedOut: boolean;
  readonly at: string | null;
}

export interface PersonConsent {
  readonly channels: readonly ChannelConsent[];
  /** The email suppression (a delivery matter, shown apart): its reason, or null. */
  readonly suppressed: string | null;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;

/**
 * GET /v1/consent's answer as badges: each channel opted out (its earliest `opted_out_of`
 * time), and each channel opted in whose latest change on record is an opt-in (a channel
 * nobody ever changed says nothing: never asked is not a consent).
 */
export function readConsent(body: unknown): PersonConsent {
  const answer = record(body);
  const history = Array.isArray(answer?.['history']) ? answer['history'].map(record) : [];
  const channels = Object.entries(record(answer?.['channels']) ?? {}).flatMap(([channel, value]): ChannelConsent[] => {
    const state = record(value);
    if (state?.['state'] === 'opted_out') {
      const since = (Array.isArray(state['opted_out_of']) ? state['opted_out_of'] : []).map((o) => record(o)?.['since']).filter((s) => typeof s === 'string').sort()[0];
      return [{ channel, optedOut: true, at: since ?? null }];
    }
    // History is newest first: the first entry of the channel is its latest change.
    const latest = history.find((entry) => entry?.['channel'] === channel);
    return state?.['state'] === 'opted_in' && latest?.['change'] === 'opted_in'
      ? [{ channel, optedOut: false, at: typeof latest['at'] === 'string' ? latest['at'] : null }]
      : [];
  });
  const suppression = record(answer?.['suppression']);
  return { channels, suppressed: typeof suppression?.['reason'] === 'string' ? suppression['reason'] : null };
}

/** The person's consent; null when this herald has no consent ledger to ask (404). */
export const consentQuery = (person: string) => ({
  queryKey: ['consent', person],
  queryFn: async (): Promise<PersonConsent | null> => {
    try {
      return readConsent(await api<unknown>('/v1/consent', { query: { address: person } }));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  },
  retry: false,
}) as const;
