// POST /v1/sms/send: the body checked in the order the wire contract implies,
// and the spec's billing rule (one message per 160 characters of cleaned text).
import { toGsm7 } from './gsm7.ts';
import { ok, reject } from './result.ts';
import type { Offending, Result } from './result.ts';
import { echoText, isJsonObject, ownField } from './json-object.ts';

/**
 * The spec's "1 message = 160 characters". Deliberately not the 153 of real
 * concatenated SMS nor septet-based: the contract bills by characters.
 */
export const SMS_SEGMENT_LENGTH = 160;

const MOBILE_NUMBER = /^\+[0-9]{10,15}$/;

export interface SmsRequest {
  /** The message after `toGsm7`: what is sent and billed. */
  readonly text: string;
  readonly segments: number;
  /** In request order, duplicates kept: each entry is a contact and is billed. */
  readonly numbers: readonly string[];
}

/** Messages billed for one recipient: ceil(code points / 160) of the GSM-cleaned text. */
export function segmentCount(text: string): number {
  // toGsm7 is idempotent, so cleaned input is counted unchanged.
  return Math.ceil(Array.from(toGsm7(text)).length / SMS_SEGMENT_LENGTH);
}

/** The GSM-cleaned text in 160-character chunks; never splits a code point. */
export function splitSegments(text: string): string[] {
  const chars = Array.from(toGsm7(text));
  const segments: string[] = [];
  for (let start = 0; start < chars.length; start += SMS_SEGMENT_LENGTH) {
    segments.push(chars.slice(start, start + SMS_SEGMENT_LENGTH).join(''));
  }
  return segments;
}

export function parseSmsRequest(body: unknown): Result<SmsRequest> {
  if (!isJsonObject(body)) return reject('invalidRequest1');

  const numbers = ownField(body, 'mobile_numbers');
  if (!Array.isArray(numbers) || numbers.length === 0) return reject('mobileNumbersMissing');

  const message = ownField(body, 'message');
  if (typeof message !== 'string' || message.trim() === '') return reject('smsMessageMissing');

  // Index loop, not `every`/`filter`, so holes are seen and reported too.
  const offending: Offending[] = [];
  const valid: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    const entry: unknown = numbers[i];
    if (typeof entry === 'string' && MOBILE_NUMBER.test(entry)) valid.push(entry);
    else offending.push({ mobile_number: echoText(entry) });
  }
  if (offending.length > 0) return reject('mobileWrongStructure', { offending });

  // An all-emoji message cleans to nothing: there is nothing to send or bill.
  const text = toGsm7(message);
  if (text.trim() === '') return reject('smsMessageMissing');

  return ok({ text, segments: segmentCount(text), numbers: valid });
}
