import type { Outbound, WhatsappPayload } from '../../domain/outbound.ts';
import type { CaptureSink, Outcome, Transport } from '../channel.ts';
import { cloudApiMessageBody } from './cloud-api-body.ts';

/** Stores the exact Cloud API request body the real transport would POST. */
export function whatsappCaptureTransport(deps: { sink: CaptureSink }): Transport<WhatsappPayload> {
  return {
    name: 'capture',
    async send(message: Outbound<WhatsappPayload>): Promise<Outcome> {
      const body = JSON.stringify(cloudApiMessageBody(message));
      await deps.sink.put({ messageId: message.msgid, contentType: 'application/json', body });
      return { kind: 'accepted', peer: 'capture', response: 'captured' };
    },
  };
}
