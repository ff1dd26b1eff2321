import type { EmailPayload, Outbound } from '../../domain/outbound.ts';
import type { CaptureSink, Outcome, Transport } from '../channel.ts';
import { renderMime, type ResolvedAttachment } from './mime.ts';

export type AttachmentResolver = (message: Outbound<EmailPayload>, signal: AbortSignal) => Promise<
  { ok: true; attachments: ResolvedAttachment[] } | { ok: false; reason: string; permanent: boolean }
>;

/** Renders exactly the MIME message the SMTP transports would send, and stores it. */
export function emailCaptureTransport(deps: { sink: CaptureSink; resolveAttachments: AttachmentResolver; messageIdHost: string }): Transport<EmailPayload> {
  return {
    name: 'capture',
    async send(message, signal): Promise<Outcome> {
      const resolved = await deps.resolveAttachments(message, signal);
      if (!resolved.ok) {
        return resolved.permanent
          ? { kind: 'failed', peer: 'capture', response: resolved.reason, leftTheHouse: false }
          : { kind: 'deferred', peer: 'capture', response: resolved.reason };
      }
      const mime = await renderMime(message, resolved.attachments, deps.messageIdHost);
      await deps.sink.put({ messageId: message.msgid, contentType: 'message/rfc822', body: mime.toString('utf8') });
      return { kind: 'accepted', peer: 'capture', response: `captured ${mime.length} bytes` };
    },
  };
}
