import { isJsonObject, ownField } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';

// `send_at`, herald's own field on POST /v1/email, /v1/sms/send and
// /v1/whatsapp/sendTemplateMessage (README "Scheduled sends"): when the message leaves.
// ISO 8601 with a UTC offset or Z, at most SEND_AT_MAX_AHEAD_MS ahead. A time not after
// the request's arrival (now or past) sends at once, as a send without the field: a
// client whose clock runs a little behind gets its message out rather than an error.

export const SEND_AT_MAX_AHEAD_HOURS = 72;
export const SEND_AT_MAX_AHEAD_MS = SEND_AT_MAX_AHEAD_HOURS * 3600_000;

// Date and time to the minute, optional seconds and fraction, then Z or ±hh:mm: the offset is required (no local times).
const SEND_AT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

const invalid = (detail: string) => reject('invalidField', { detail });

export const SEND_AT_FORMAT_DETAIL = 'send_at must be an ISO 8601 date and time with a UTC offset or Z, e.g. 2026-05-01T09:30:00Z';
export const SEND_AT_TOO_FAR_DETAIL = `send_at must be at most ${SEND_AT_MAX_AHEAD_HOURS} hours ahead`;

/** The time `text` names (epoch ms), or undefined when it is not one (a field out of range: 2026-02-30, 24:00, +25:00). */
export function parseSendAtTime(text: string): number | undefined {
  const match = SEND_AT.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, offset] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s ?? '0'].map(Number) as [number, number, number, number, number, number];
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, Number(((fraction ?? '') + '000').slice(0, 3)));
  const back = new Date(utc);
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  if (offset === undefined || offset === 'Z') return utc;
  const [oh, om] = offset.slice(1).split(':').map(Number) as [number, number];
  if (oh > 23 || om > 59) return undefined;
  return utc - (offset.startsWith('-') ? -1 : 1) * (oh * 60 + om) * 60_000;
}

/**
 * The send's time from the body's `send_at`, as SendOptions' field: none to send at once
 * (absent, null, or not after `now`); 400 for a time malformed or too far ahead.
 */
export function parseSendAt(body: unknown, now: number): Result<{ readonly sendAt?: number }> {
  const raw = isJsonObject(body) ? ownField(body, 'send_at') : undefined;
  if (raw === undefined || raw === null) return ok({});
  const at = typeof raw === 'string' ? parseSendAtTime(raw) : undefined;
  if (at === undefined) return invalid(SEND_AT_FORMAT_DETAIL);
  if (at <= now) return ok({});
  if (at - now > SEND_AT_MAX_AHEAD_MS) return invalid(SEND_AT_TOO_FAR_DETAIL);
  return ok({ sendAt: at });
}

/** A new time for a message already scheduled (PATCH /v1/messages/:msgid/schedule): here a time not after now is refused, as there is nothing to send at once from a patch. */
export function parseReschedule(body: unknown, now: number): Result<number> {
  const raw = isJsonObject(body) ? ownField(body, 'send_at') : undefined;
  const at = typeof raw === 'string' ? parseSendAtTime(raw) : undefined;
  if (at === undefined) return invalid(SEND_AT_FORMAT_DETAIL);
  if (at <= now) return invalid('send_at must be in the future');
  if (at - now > SEND_AT_MAX_AHEAD_MS) return invalid(SEND_AT_TOO_FAR_DETAIL);
  return ok(at);
}
