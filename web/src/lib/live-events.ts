// The account's events as GET /v1/events/stream sends them (docs/live-updates.md), what
// each one makes stale in the page caches, and the tab's recent events for the overview's
// activity feed. Pure, apart from the small in-memory log; the stream itself is
// components/live-updates.tsx.

/** One event: `type`, `at`, ids and a status (never a message's content). */
export interface LiveEvent {
  readonly type: 'message.created' | 'message.updated' | 'inbound.received' | 'webhook.queued' | 'webhook.attempted' | 'import.updated' | 'campaign.updated';
  readonly at: string;
  readonly message_id?: string;
  readonly channel?: string;
  readonly status?: string;
  readonly campaign_id?: string | null;
  readonly inbound_id?: string;
  readonly delivery_id?: string;
  readonly event_type?: string;
  readonly status_code?: number | null;
  readonly import_id?: string;
  readonly [field: string]: unknown;
}

export function parseLiveEvent(data: string): LiveEvent | undefined {
  try {
    const value = JSON.parse(data) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const event = value as Partial<LiveEvent>;
    return typeof event.type === 'string' && typeof event.at === 'string' ? event as LiveEvent : undefined;
  } catch {
    return undefined;
  }
}

const campaignKeysOf = (id: string): unknown[][] => [
  ['campaigns'], ['campaign', id], ['campaign-stats', id], ['campaign-timeline', id], ['campaign-recipients', id],
];

/** The query-key prefixes an event makes stale (react-query matches on prefixes). */
export function staleKeysOf(event: LiveEvent): unknown[][] {
  switch (event.type) {
    case 'message.created':
    case 'message.updated': {
      const keys: unknown[][] = [['messages'], ['usage'], ['account'], ['conversations'], ['conversation']];
      if (event.message_id !== undefined) keys.push(['message', event.message_id]);
      if (typeof event.campaign_id === 'string') keys.push(...campaignKeysOf(event.campaign_id));
      return keys;
    }
    case 'inbound.received':
      return [['conversations'], ['conversation'], ['inbound']];
    case 'webhook.queued':
    case 'webhook.attempted':
      return [['webhook-deliveries'], ...(event.delivery_id === undefined ? [] : [['webhook-delivery', event.delivery_id]])];
    case 'import.updated':
      return [['lists'], ['list'], ['contacts'], ...(event.import_id === undefined ? [] : [['contact-import', event.import_id]])];
    case 'campaign.updated':
      return typeof event['campaign_id'] === 'string' ? campaignKeysOf(event['campaign_id']) : [['campaigns']];
    default:
      return [];
  }
}

/** What every poll refreshes while the stream is down: the same pages, all at once. */
export const POLLED_KEYS: readonly unknown[][] = [
  ['messages'], ['message'], ['usage'], ['account'], ['conversations'], ['conversation'], ['inbound'], ['webhook-deliveries'], ['webhook-delivery'],
  ['lists'], ['list'], ['contacts'], ['contact-import'], ['campaigns'], ['campaign'], ['campaign-stats'], ['campaign-timeline'], ['campaign-recipients'],
];

// ---- the tab's recent events (the overview's activity feed) ----

export const ACTIVITY_SIZE = 20;

/** An event as the tab noted it: `seq` tells it apart from the others in a list. */
export interface NotedEvent {
  readonly seq: number;
  readonly event: LiveEvent;
}

let activity: readonly NotedEvent[] = [];
let seq = 0;
const listeners = new Set<() => void>();

export function noteActivity(event: LiveEvent): void {
  seq += 1;
  activity = [{ seq, event }, ...activity].slice(0, ACTIVITY_SIZE);
  for (const listener of listeners) listener();
}

export const recentActivity = (): readonly NotedEvent[] => activity;

export function onActivity(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The stream's state, for the shell's status and the activity feed. */
export type LiveState = 'connecting' | 'live' | 'polling' | 'off';

let state: LiveState = 'connecting';
const stateListeners = new Set<() => void>();

export function setLiveState(next: LiveState): void {
  if (next === state) return;
  state = next;
  for (const listener of stateListeners) listener();
}

export const liveState = (): LiveState => state;

export function onLiveState(listener: () => void): () => void {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}
