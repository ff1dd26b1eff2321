import type { Outbound } from '../domain/outbound.ts';

// What a transport reports back. Expected failures are outcomes, not exceptions:
// the peer's code and words travel up unchanged and outbox/retry-policy decides.
export type Outcome =
  | { readonly kind: 'accepted'; readonly peer: string; readonly response: string }
  | { readonly kind: 'deferred'; readonly peer: string; readonly response: string }
  | { readonly kind: 'failed'; readonly peer: string; readonly response: string; readonly leftTheHouse: boolean };

export interface Transport<P> {
  readonly name: string;
  send(message: Outbound<P>, signal: AbortSignal): Promise<Outcome>;
  close?(): Promise<void>;
}

/** Where capture transports put what they would have put on the wire. */
export interface CaptureSink {
  put(capture: { messageId: string; contentType: string; body: string }): Promise<void>;
}
