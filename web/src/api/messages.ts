// The message log (/v1/messages), a message's captured forms and certificate, and a send
// through POST /v1/email (the template editor's test).
import { api, ApiError, send, type Query } from './http.ts';
import type { CertificateView, MessagePage, MessageView } from './types.ts';

export const MESSAGE_PAGE = 50;

const messagePath = (msgid: string, tail = ''): string => `/v1/messages/${encodeURIComponent(msgid)}${tail}`;

export const messageKeys = {
  page: (filter: unknown, cursor: string | undefined) => ['messages', filter, cursor],
  detail: (msgid: string) => ['message', msgid],
  raw: (msgid: string) => ['message-raw', msgid],
  certificate: (msgid: string) => ['certificate', msgid],
} as const;

/** Cancels a scheduled message (refunded); 409 once it left or was cancelled. */
export const cancelSchedule = (msgid: string) => api<{ msgid: string; status: 'cancelled' }>(messagePath(msgid, '/schedule'), { method: 'DELETE' });

export const isNotFound = (error: unknown): boolean => error instanceof ApiError && error.status === 404;

/** The log's filters as the address and GET /v1/messages name them (the dates: the browser's days). */
export const MESSAGE_FILTERS = ['recipient_prefix', 'subject', 'status', 'channel', 'campaign_id', 'tag', 'metadata_key', 'metadata_value', 'since', 'until'] as const;
export type MessageFilter = Record<(typeof MESSAGE_FILTERS)[number], string>;

/** A page of the log with how many messages match (at most 10,000: `total_capped` past that). */
export const fetchMessages = (filter: Query, cursor: string | undefined) =>
  api<MessagePage>('/v1/messages', { query: { ...filter, cursor, limit: MESSAGE_PAGE, include_total: 'true' } });

export const messageQuery = (msgid: string) => ({
  queryKey: messageKeys.detail(msgid),
  queryFn: () => api<MessageView>(messagePath(msgid)),
}) as const;

/** The address herald serves the email's HTML at (with its own CSP), for a sandboxed frame. */
export const messagePreviewUrl = (msgid: string): string => messagePath(msgid, '/preview');

/** The raw MIME of an email as it went out. */
export async function fetchRawMime(msgid: string): Promise<Blob> {
  const response = await send(messagePath(msgid, '/raw'));
  return response.blob();
}

/** The captured SMS or WhatsApp request (404 without the capture transport). */
export const capturedQuery = (msgid: string) => ({
  queryKey: messageKeys.raw(msgid),
  queryFn: () => api<Record<string, unknown>>(messagePath(msgid, '/raw')),
}) as const;

/** The delivery certificate, or null when the email has none (yet). */
export const certificateQuery = (msgid: string) => ({
  queryKey: messageKeys.certificate(msgid),
  queryFn: async (): Promise<CertificateView | null> => {
    try {
      return await api<CertificateView>(`/v1/email/${encodeURIComponent(msgid)}/certificate`);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  },
}) as const;

export interface EmailAccepted { message: string; to: { email: string; msgid: string }[] }

interface Address { email: string; name: string }
export interface TemplateSend {
  to: { email: string }[]; from: Address; replyTo: Address; subject: string; template_id: string; variables: Record<string, string>;
}

export const sendEmail = (body: TemplateSend) => api<EmailAccepted>('/v1/email', { method: 'POST', body });
