import { parseAddress } from '../domain/email-address.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import type { User } from '../domain/user.ts';
import { findSigningInUser } from '../store/users.ts';
import { verifyPassword } from './password-hash.ts';
import type { AuthDeps } from './sessions.ts';
import { checkTotp } from './two-factor.ts';

// Sign-in's checks, in an order that tells nothing away: the password is checked (or a
// decoy, for an unknown address, at the same cost) before anything else is said, and a
// missing or wrong address gets the same answer as a wrong password. Only someone who
// knows the password learns that a second factor is needed. The two steps are apart so
// that the route can take a try at the user's codes (http/plugins/attempt-throttle.ts)
// only once the password is known to be right: a stranger's wrong passwords never use up
// the user's tries at a code.

export interface SignInInput {
  readonly email: string;
  readonly password: string;
}

/** The user whose password this is, or signInFailed. */
export async function checkPassword(deps: AuthDeps, input: SignInInput): Promise<Result<User>> {
  const address = parseAddress(input.email)?.toLowerCase();
  const user = address === undefined ? undefined : await findSigningInUser(deps.db, address);
  const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? null);
  return user === undefined || !passwordOk ? reject('signInFailed') : ok(user);
}

/** Whether the user needs a code at all. */
export const needsSecondFactor = (user: User): boolean => user.totpSecret !== null;

/** The second step: totpRequired without a code, totpIncorrect for a wrong (or used) one. */
export async function checkSecondFactor(deps: AuthDeps, user: User, code: string | undefined): Promise<Result<User>> {
  if (!needsSecondFactor(user)) return ok(user);
  if (code === undefined || code.trim() === '') return reject('totpRequired');
  return (await checkTotp(deps, user, code)) ? ok(user) : reject('totpIncorrect');
}

/** The address sign-in attempts are counted under (lower-cased; unparseable input as given, bounded). */
export const signInKeyOf = (email: string): string => (parseAddress(email) ?? email.slice(0, 320)).toLowerCase();
