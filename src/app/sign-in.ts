import { parseAddress } from '../domain/email-address.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import type { User } from '../domain/user.ts';
import { findUserByEmail } from '../store/users.ts';
import { verifyPassword } from './password-hash.ts';
import type { AuthDeps } from './sessions.ts';
import { checkTotp } from './two-factor.ts';

// Sign-in's checks, in an order that tells nothing away: the password is checked (or a
// decoy, for an unknown address, at the same cost) before anything else is said, and a
// missing or wrong address gets the same answer as a wrong password. Only someone who
// knows the password learns that a second factor is needed.

export interface SignInInput {
  readonly email: string;
  readonly password: string;
  readonly totpCode?: string | undefined;
}

/** The user, or signInFailed | totpRequired | totpIncorrect. */
export async function checkSignIn(deps: AuthDeps, input: SignInInput): Promise<Result<User>> {
  const address = parseAddress(input.email)?.toLowerCase();
  const user = address === undefined ? undefined : await findUserByEmail(deps.db, address);
  const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (user === undefined || !passwordOk) return reject('signInFailed');
  if (user.totpSecret === null) return ok(user);
  if (input.totpCode === undefined || input.totpCode.trim() === '') return reject('totpRequired');
  return (await checkTotp(deps, user, input.totpCode)) ? ok(user) : reject('totpIncorrect');
}

/** The address sign-in attempts are counted under (lower-cased; unparseable input as given, bounded). */
export const signInKeyOf = (email: string): string => (parseAddress(email) ?? email.slice(0, 320)).toLowerCase();
