import type { EmailPayload } from '../../domain/outbound.ts';
import type { CaptureSink, Outcome, Transport } from '../channel.ts';
import { prepareEmail, type AttachmentResolver, type ComposeSettings } from './compose.ts';
import { renderMime } from './mime.ts';
import { captureEvidence, certifiedMessage } from './transcript.ts';

// attachments.ts implements the resolver against this module's name.
export type { AttachmentResolver } from './compose.ts';

/**
 * Renders exactly the MIME message the SMTP transports would send (same composition,
 * same DKIM signature) and stores it. The envelope is not part of the capture: it is
 * the message's recipient and its VERP address, both derived from the message row.
 */
export function emailCaptureTransport(
  deps: ComposeSettings & { readonly sink: CaptureSink; readonly resolveAttachments: AttachmentResolver },
): Transport<EmailPayload> {
  return {
    name: 'capture',
    async send(message, signal): Promise<Outcome> {
      const prepared = await prepareEmail(message, signal, deps, 'capture');
      if (!prepared.ok) return prepared.outcome;
      if (message.payload.certified === true) {
        // Its receipt certifies composition only: nothing left the machine, no MX saw it.
        const certified = await certifiedMessage(message, prepared.mail);
        await deps.sink.put({ messageId: message.msgid, contentType: 'message/rfc822', body: certified.raw.toString('utf8') });
        const evidence = captureEvidence(certified, (deps.clock ?? Date.now)());
        return { kind: 'accepted', peer: 'capture', response: `captured ${certified.raw.length} bytes`, evidence };
      }
      const mime = await renderMime(prepared.mail);
      await deps.sink.put({ messageId: message.msgid, contentType: 'message/rfc822', body: mime.toString('utf8') });
      return { kind: 'accepted', peer: 'capture', response: `captured ${mime.length} bytes` };
    },
  };
}
