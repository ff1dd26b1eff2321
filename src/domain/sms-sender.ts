// An account's SMS senders (issue 23): the source addresses its SMS go out from, set by
// the operator (`smsSenders`), the first the default; a send may name another of them
// (`from`). Three forms, told apart by their text alone, so no kind is stored:
//   long number    `+` and 8–15 digits (E.164; replies come back to it)
//   short code     3–8 digits
//   alphanumeric   1–11 of A–Z, a–z, 0–9 and space, at least one letter (the GSM 03.40
//                  limit of an alphanumeric originator; a number has no letter). No space at
//                  either end: invisible there, it would make `from` fail to match.
import { echoText } from './json-object.ts';
import { ok, reject, type Result } from './result.ts';

export const SMS_SENDERS_MAX = 20;

export type SmsSenderForm = 'long-number' | 'short-code' | 'alphanumeric';

const LONG_NUMBER = /^\+[0-9]{8,15}$/;
const SHORT_CODE = /^[0-9]{3,8}$/;
const ALPHANUMERIC = /^(?=[^ ])(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}(?<=[^ ])$/;

export const SMS_SENDER_PROBLEM = 'is not a long number (+ and 8 to 15 digits), a short code (3 to 8 digits) '
  + 'or an alphanumeric sender id (1 to 11 letters, digits and inner spaces, with a letter)';

/** Which form `sender` has; null when it is none of them. */
export function smsSenderForm(sender: string): SmsSenderForm | null {
  if (LONG_NUMBER.test(sender)) return 'long-number';
  if (SHORT_CODE.test(sender)) return 'short-code';
  if (ALPHANUMERIC.test(sender)) return 'alphanumeric';
  return null;
}

/** What is wrong with one entry, in the detail's words after its quoted value; undefined when it is a sender (the console shows it per line). */
export function smsSenderProblem(entry: string): string | undefined {
  return smsSenderForm(entry) === null ? SMS_SENDER_PROBLEM : undefined;
}

/**
 * The operator's list as stored: null clears it (so does []). Each entry is checked as it
 * was given, never rewritten, so the sender a send names is the text the operator typed.
 */
export function parseSmsSenders(entries: readonly unknown[] | null, field = 'smsSenders'): Result<readonly string[] | null> {
  if (entries === null || entries.length === 0) return ok(null);
  if (entries.length > SMS_SENDERS_MAX) return reject('invalidField', { detail: `${field}: must hold at most ${SMS_SENDERS_MAX} senders` });
  const seen = new Set<string>();
  for (const entry of entries) {
    if (typeof entry !== 'string' || smsSenderForm(entry) === null) return reject('invalidField', { detail: `${field}: "${echoText(entry)}" ${SMS_SENDER_PROBLEM}` });
    if (seen.has(entry)) return reject('invalidField', { detail: `${field}: "${entry}" is listed twice` });
    seen.add(entry);
  }
  return ok([...seen]);
}

/**
 * The sender of one SMS send: the `from` it names (null or absent: none), which must be
 * one of the account's; without one, the account's default; undefined when the account
 * has no senders, and the transport's own is used as before senders existed.
 */
export function senderOfSend(from: unknown, senders: readonly string[]): Result<string | undefined> {
  if (from === undefined || from === null) return ok(senders[0]);
  if (typeof from === 'string' && senders.includes(from)) return ok(from);
  return reject('invalidSender', {
    detail: senders.length === 0
      ? 'from: this account has no SMS senders; leave from out to send from the service\'s own'
      : `from: must be one of this account's SMS senders: ${senders.join(', ')}`,
  });
}
