// POST /v1/sms/send: the body checked in the order the wire contract implies,
// and the spec's billing rule (one message per 160 characters of cleaned text).
// The text is converted to GSM once, in one pass that stops past the length limit
// (HERALD_MAX_SMS_SEGMENTS messages); the count of numbers is checked before any is read.
import { toGsm7, toGsm7Within } from './gsm7.ts';
import { DEFAULT_LIMITS, type RequestLimits } from './request-limits.ts';
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

/** Messages billed for one recipient: ceil(characters / 160) of the GSM-cleaned text. */
export function segmentCount(text: string): number {
  // toGsm7 is idempotent, so cleaned input is counted unchanged; each GSM character is one code unit.
  return Math.ceil(toGsm7(text).length / SMS_SEGMENT_LENGTH);
}

/** Text already in GSM (toGsm7's result) in 160-character chunks: no conversion again. */
export function splitGsmText(gsmText: string): string[] {
  const segments: string[] = [];
  for (let start = 0; start < gsmText.length; start += SMS_SEGMENT_LENGTH) segments.push(gsmText.slice(start, start + SMS_SEGMENT_LENGTH));
  return segments;
}

/** The GSM-cleaned text in 160-character chunks. */
export function splitSegments(text: string): string[] {
  return splitGsmText(toGsm7(text));
}

export function parseSmsRequest(body: unknown, limits: RequestLimits = DEFAULT_LIMITS): Result<SmsRequest> {
  if (!isJsonObject(body)) return reject('invalidRequest1');

  const numbers = ownField(body, 'mobile_numbers');
  if (!Array.isArray(numbers) || numbers.length === 0) return reject('mobileNumbersMissing');

  const message = ownField(body, 'message');
  if (typeof message !== 'string' || message.trim() === '') return reject('smsMessageMissing');

  if (numbers.length > limits.maxSmsNumbers) return reject('tooManyMobileNumbers', { detail: `at most ${limits.maxSmsNumbers} numbers` });

  // Index loop, not `every`/`filter`, so holes are seen and reported too.
  const offending: Offending[] = [];
  const valid: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    const entry: unknown = numbers[i];
    if (typeof entry === 'string' && MOBILE_NUMBER.test(entry)) valid.push(entry);
    else offending.push({ mobile_number: echoText(entry) });
  }
  if (offending.length > 0) return reject('mobileWrongStructure', { offending });

  // Past the limit in GSM characters the message is refused. A code point takes at most two
  // code units and conversion removes more than it adds, so a message over twice the limit
  // in code units is refused before it is converted at all.
  const maxLength = limits.maxSmsSegments * SMS_SEGMENT_LENGTH;
  const tooLong = reject('smsTooLong', { detail: `at most ${limits.maxSmsSegments} messages of ${SMS_SEGMENT_LENGTH} characters (${maxLength} characters after GSM conversion)` });
  if (message.length > 2 * maxLength) return tooLong;
  const text = toGsm7Within(message, maxLength);
  if (text === null) return tooLong;
  // An all-emoji message cleans to nothing: there is nothing to send or bill.
  if (text.trim() === '') return reject('smsMessageMissing');

  return ok({ text, segments: Math.ceil(text.length / SMS_SEGMENT_LENGTH), numbers: valid });
}
