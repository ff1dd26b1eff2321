import { ok, reject, type Result } from '../domain/result.ts';
import type { User } from '../domain/user.ts';
import { claimTotpStep, setTotpPending, setTotpSecret } from '../store/users.ts';
import type { AuthDeps } from './sessions.ts';
import { newTotpSecret, totpCipher, totpStep } from './totp.ts';

// Turning the second factor on and off (POST /v1/me/totp, …/confirm, DELETE), and
// checking a code at sign-in. Set-up is two steps, so a secret that never reached an
// authenticator app cannot lock the user out: the pending secret becomes the factor
// only once a code made from it is confirmed.

/** A new pending secret (replacing any earlier one not yet confirmed). */
export async function startTotpSetup(deps: AuthDeps, user: User): Promise<Result<{ secret: string; otpauthUrl: string }>> {
  if (user.totpSecret !== null) return reject('totpAlreadyOn');
  const created = newTotpSecret(user.email);
  await setTotpPending(deps.db, user.id, totpCipher(deps.signingSecret).encrypt(created.secret), deps.clock());
  return ok(created);
}

/** The pending secret becomes the user's second factor when the code matches it. */
export async function confirmTotp(deps: AuthDeps, user: User, code: string): Promise<Result<void>> {
  if (user.totpSecret !== null) return reject('totpAlreadyOn');
  if (user.totpPendingSecret === null) return reject('totpNotStarted');
  const now = deps.clock();
  const step = totpStep(totpCipher(deps.signingSecret).decrypt(user.totpPendingSecret), code, now);
  if (step === undefined) return reject('totpIncorrect');
  await setTotpSecret(deps.db, user.id, user.totpPendingSecret, step, now);
  return ok(undefined);
}

/** Whether the code is the user's current one, used for the first time (a code is never accepted twice). */
export async function checkTotp(deps: AuthDeps, user: User, code: string): Promise<boolean> {
  if (user.totpSecret === null) return false;
  const step = totpStep(totpCipher(deps.signingSecret).decrypt(user.totpSecret), code, deps.clock());
  return step !== undefined && (await claimTotpStep(deps.db, user.id, step));
}

/** Turns the second factor off; a current code proves the person still holds it. */
export async function disableTotp(deps: AuthDeps, user: User, code: string): Promise<Result<void>> {
  if (user.totpSecret === null) return reject('totpNotOn');
  if (!(await checkTotp(deps, user, code))) return reject('totpIncorrect');
  await setTotpSecret(deps.db, user.id, null, null, deps.clock());
  return ok(undefined);
}
