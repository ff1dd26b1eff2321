import type { EmailPayload, Outbound } from '../../domain/outbound.ts';
import type { AttachmentResolver } from './capture-transport.ts';
import type { ResolvedAttachment } from './mime.ts';
import { guardedFetch, type GuardedFetchOptions } from '../guarded-fetch.ts';

export interface AttachmentFetchSettings {
  readonly allowPrivate: boolean;
  /** The most bytes all attachments of one message may take together, decoded (HERALD_MAX_ATTACHMENT_BYTES). */
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly lookup?: GuardedFetchOptions['lookup'];
}

/**
 * Data-URI attachments were decoded and checked when the request was accepted; URL
 * attachments are fetched now, at delivery, through the private-address guard, each
 * within what the message's total leaves. A fetch that fails permanently (a body past
 * that budget too) fails the message with the fetch's reason.
 */
export function attachmentResolver(settings: AttachmentFetchSettings): AttachmentResolver {
  return async (message: Outbound<EmailPayload>, signal: AbortSignal) => {
    const resolved: ResolvedAttachment[] = [];
    let remaining = settings.maxBytes;
    for (const attachment of message.payload.attachments) if (attachment.source.kind === 'data') remaining -= attachment.source.size;
    for (const attachment of message.payload.attachments) {
      const { source } = attachment;
      if (source.kind === 'data') {
        resolved.push({ filename: attachment.filename, contentType: source.contentType, content: Buffer.from(source.base64, 'base64') });
        continue;
      }
      const fetched = await guardedFetch(source.url, { ...settings, maxBytes: Math.max(0, remaining), signal });
      if (!fetched.ok) return { ok: false, reason: `attachment ${attachment.filename}: ${fetched.reason}`, permanent: fetched.permanent };
      remaining -= fetched.body.length;
      resolved.push({ filename: attachment.filename, contentType: fetched.contentType ?? 'application/octet-stream', content: fetched.body });
    }
    return { ok: true, attachments: resolved };
  };
}
