import type { WireCode } from './wire-texts.ts';

/** An entry of a validation error's `error` list: `{email}` or `{mobile_number}`. */
export type Offending = Readonly<Record<string, string>>;

/** Why a request cannot be served, as a wire code; the HTTP layer turns it into status and body. */
export interface Rejection {
  readonly code: WireCode;
  /** For validation errors that list the offending values (the spec's `error` array). */
  readonly offending?: readonly Offending[];
  /** For herald's own `invalidField` texts: which field, for a human reader. */
  readonly detail?: string;
  /** For `campaignState` and `messageNotScheduled`: the status the campaign or message is in. */
  readonly status?: string;
  /** For a batch refused whole (`?atomic=true`): the position (from 0) of the item refused. */
  readonly index?: number;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly rejection: Rejection };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const reject = (code: WireCode, extra: Omit<Rejection, 'code'> = {}): { ok: false; rejection: Rejection } => ({
  ok: false,
  rejection: { code, ...extra },
});

/** Thrown by use cases when a rejection must unwind a transaction; the HTTP layer renders it. */
export class RejectionError extends Error {
  readonly rejection: Rejection;
  constructor(rejection: Rejection) {
    super(rejection.code);
    this.name = 'RejectionError';
    this.rejection = rejection;
  }
}
