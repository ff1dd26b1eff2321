// The Conversations page's calls: the people who wrote (/v1/conversations), one thread,
// and the three ways to answer (a WhatsApp session message, an SMS, an email). The
// person's consent is api/consent.ts's.
import { api } from './http.ts';
import type { ConversationPage, ConversationThread } from './types.ts';

export const CONVERSATION_PAGE = 50;

export const conversationKeys = {
  page: (cursor: string | undefined) => ['conversations', cursor],
  thread: (person: string) => ['conversation', person],
} as const;

export const conversationsQuery = (cursor: string | undefined) => ({
  queryKey: conversationKeys.page(cursor),
  queryFn: () => api<ConversationPage>('/v1/conversations', { query: { cursor, limit: CONVERSATION_PAGE } }),
}) as const;

/** A page of a thread: the latest without a cursor, then older ones by the previous page's next_cursor. */
export const fetchThread = (person: string, cursor: string | undefined) =>
  api<ConversationThread>(`/v1/conversations/${encodeURIComponent(person)}`, { query: { cursor } });

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
