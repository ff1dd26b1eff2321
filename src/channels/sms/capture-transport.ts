import type { Outbound, SmsPayload } from '../../domain/outbound.ts';
import type { CaptureSink, Outcome, Transport } from '../channel.ts';

/** Stores the SMS as it would be submitted: destination, sender (when the account has senders), GSM 03.38 text and its billed segments. */
export function smsCaptureTransport(deps: { sink: CaptureSink }): Transport<SmsPayload> {
  return {
    name: 'capture',
    async send(message: Outbound<SmsPayload>): Promise<Outcome> {
      const body = JSON.stringify({
        to: message.recipient,
        ...(message.payload.from === undefined ? {} : { from: message.payload.from }),
        encoding: 'GSM7',
        text: message.payload.text,
        segments: message.payload.segments,
      });
      await deps.sink.put({ messageId: message.msgid, contentType: 'application/json', body });
      return { kind: 'accepted', peer: 'capture', response: `captured ${message.payload.segments.length} segment(s)` };
    },
  };
}
