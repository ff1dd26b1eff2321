import type { DeliveryEvidence } from '../domain/certificate.ts';
import type { BounceDetails } from '../domain/dsn.ts';
import type { Outbound } from '../domain/outbound.ts';
import type { LaterStep } from '../domain/simulator.ts';

// What a transport reports back. Expected failures are outcomes, not exceptions:
// the peer's code and words travel up unchanged and outbox/retry-policy decides.
export type Outcome =
  | {
      readonly kind: 'accepted';
      readonly peer: string;
      readonly response: string;
      /** The recipient's side itself accepted (direct MX), not a relay or a gateway. */
      readonly delivered?: boolean;
      /** The peer's id of the message, for matching its later receipts (SMPP message_id, wamid). */
      readonly providerRef?: string;
      /** A certified email's evidence of acceptance, signed into a receipt by outbox/complete.ts. */
      readonly evidence?: DeliveryEvidence;
      /** The simulator's later reports, `stepMs` apart, stored with this outcome (docs/sandbox.md). */
      readonly simulated?: { readonly later: readonly LaterStep[]; readonly stepMs: number };
    }
  | {
      readonly kind: 'deferred';
      readonly peer: string;
      readonly response: string;
      /** The peer said when to try again (the simulator's delay); absent: the retry policy's backoff. */
      readonly retryAfterMs?: number;
    }
  | {
      readonly kind: 'failed';
      readonly peer: string;
      readonly response: string;
      /** False when the message never reached a peer: it is refunded. */
      readonly leftTheHouse: boolean;
      /** The recipient's side refused it for good (an SMTP 5xx to RCPT or DATA). */
      readonly bounced?: boolean;
      /** For a bounce: hard or soft, the enhanced status code and the reply, for the `bounced` event. */
      readonly details?: BounceDetails;
    };

export interface Transport<P> {
  readonly name: string;
  send(message: Outbound<P>, signal: AbortSignal): Promise<Outcome>;
  close?(): Promise<void>;
}

/** Where capture transports put what they would have put on the wire. */
export interface CaptureSink {
  put(capture: { messageId: string; contentType: string; body: string }): Promise<void>;
}
