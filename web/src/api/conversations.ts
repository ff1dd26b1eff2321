// The Conversations page's calls: the people who wrote (/v1/conversations), one thread,
// the person's consent (/v1/consent, answered once issue 23's ledger is in), and the three
// ways to answer (a WhatsApp session message, an SMS, an email).
import { api, ApiError } from './http.ts';
import type { ConversationPage, ConversationThread } from './types.ts';

export const CONVERSATION_PAGE = 50;

export const conversationKeys = {
  page: (cursor: string | undefined) => ['conversations', cursor],
  thread: (person: string) => ['conversation', person],
  consent: (person: string) => ['consent', person],
} as const;

export const conversationsQuery = (cursor: string | undefined) => ({
  queryKey: conversationKeys.page(cursor),
  queryFn: () => api<ConversationPage>('/v1/conversations', { query: { cursor, limit: CONVERSATION_PAGE } }),
}) as const;

export const threadQuery = (person: string) => ({
  queryKey: conversationKeys.thread(person),
  queryFn: () => api<ConversationThread>(`/v1/conversations/${encodeURIComponent(person)}`),
}) as const;

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
  queryKey: conversationKeys.consent(person),
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

export interface Reply {
  readonly channel: string;
  readonly person: string;
  readonly text: string;
  /** Email only. */
  readonly from?: string;
  readonly subject?: string;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Sends the reply on its channel, through the same routes an API key uses. */
export function sendReply(reply: Reply): Promise<unknown> {
  switch (reply.channel) {
    case 'whatsapp':
      return api('/v1/whatsapp/sendMessage', { method: 'POST', body: { destination: reply.person, message: reply.text } });
    case 'sms':
      return api('/v1/sms/send', { method: 'POST', body: { mobile_numbers: [reply.person], message: reply.text } });
    default: {
      const from = reply.from ?? '';
      // The text as typed, as HTML: escaped, its line breaks kept.
      const body = `<p>${escapeHtml(reply.text).replace(/\r?\n/g, '<br>')}</p>`;
      return api('/v1/email', {
        method: 'POST',
        body: { to: [{ email: reply.person }], from: { email: from, name: '' }, replyTo: { email: from, name: '' }, subject: reply.subject ?? '', body },
      });
    }
  }
}
