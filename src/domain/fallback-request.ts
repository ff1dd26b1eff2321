// herald's own `fallback` field of a send (issue 25, docs/fallback.md): the legs that go
// when the previous one has not been delivered in time. Read after the send's own checks,
// so a body valid by the interface never fails here; each leg's `message` is then checked
// by that channel's own request parser (app/fallback-chain.ts).
import type { Channel } from './account.ts';
import { isJsonObject, ownField, type JsonObject } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';

/** Legs after the first a chain may name (the first is the send itself). */
export const MAX_FALLBACK_LEGS = 1;
/** The shortest and longest wait before a leg goes: a second, a day. */
export const MIN_FALLBACK_AFTER_MS = 1000;
export const MAX_FALLBACK_AFTER_MS = 24 * 60 * 60 * 1000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
// A whole number and one unit: 30s, 10m, 1h. At most 6 digits, so it is read exactly.
const DURATION = /^([1-9][0-9]{0,5})(s|m|h)$/;

export interface FallbackLegRequest {
  readonly channel: Channel;
  /** How long the previous leg has to be delivered, in ms. */
  readonly afterMs: number;
  /** `after` as the request wrote it, echoed in the answer. */
  readonly after: string;
  /** The leg's body, for its channel's own parser. */
  readonly message: JsonObject;
}

/** `30s`, `10m`, `1h` in ms, within MIN_FALLBACK_AFTER_MS..MAX_FALLBACK_AFTER_MS; null otherwise. */
export function parseFallbackAfter(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = DURATION.exec(value);
  if (match === null) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms >= MIN_FALLBACK_AFTER_MS && ms <= MAX_FALLBACK_AFTER_MS ? ms : null;
}

const invalid = (detail: string) => reject('invalidField', { detail });

/**
 * The `fallback` field of `body`: null when absent; `allowed` are the channels a leg of
 * this send may use. Refused with `invalidField` and a detail naming the field.
 */
export function parseFallbackRequest(body: unknown, allowed: readonly Channel[]): Result<readonly FallbackLegRequest[] | null> {
  if (!isJsonObject(body)) return ok(null);
  const field = ownField(body, 'fallback');
  if (field === undefined) return ok(null);
  if (!Array.isArray(field) || field.length === 0 || field.length > MAX_FALLBACK_LEGS) {
    return invalid(`fallback must be a list of 1 to ${MAX_FALLBACK_LEGS} legs`);
  }
  const legs: FallbackLegRequest[] = [];
  // Index loop, so a hole is seen.
  for (let i = 0; i < field.length; i++) {
    const leg: unknown = field[i];
    const name = `fallback[${i}]`;
    if (!isJsonObject(leg)) return invalid(`${name} must be an object with channel, after and message`);
    const channel = ownField(leg, 'channel');
    if (typeof channel !== 'string' || !allowed.includes(channel as Channel)) {
      return invalid(`${name}.channel must be ${allowed.map((c) => `"${c}"`).join(' or ')}`);
    }
    const after = ownField(leg, 'after');
    const afterMs = parseFallbackAfter(after);
    if (afterMs === null || typeof after !== 'string') {
      return invalid(`${name}.after must be a duration such as 30s, 10m or 1h, from 1s to 24h`);
    }
    const message = ownField(leg, 'message');
    if (!isJsonObject(message)) return invalid(`${name}.message must be an object: the body of the leg's own send`);
    if (ownField(message, 'fallback') !== undefined) return invalid(`${name}.message may not name a fallback of its own`);
    legs.push({ channel: channel as Channel, afterMs, after, message });
  }
  return ok(legs);
}
