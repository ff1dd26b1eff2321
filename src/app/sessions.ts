import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import type { SessionRecord, User } from '../domain/user.ts';
import { findAccount } from '../store/accounts.ts';
import {
  endSession, endUserSessions, findLiveOperatorSession, findLiveUserSession, insertOperatorSession, insertUserSession, touchSession,
} from '../store/sessions.ts';
import { findUser, recordSignIn } from '../store/users.ts';
import type { KeyDeps } from './api-keys.ts';

// Sessions of the web application (docs/users-and-sessions.md). The cookie carries 32
// random bytes; the store keeps their SHA-256, so a copy of the database signs nobody
// in. Every request reads the row (and the user's), so an ending, a removal or a role
// change written by any process applies to the next request everywhere. The CSRF
// token is an HMAC of the session id under the service's signing secret: nothing more
// to store, different for every session, and useless without the cookie.

/** The operator's settings for users and sessions (config.ts, the HERALD_SESSION_… block). */
export interface AuthSettings {
  /** A session ends after this long without a request. */
  readonly sessionIdleMs: number;
  /** …and this long after sign-in, whatever happens. */
  readonly sessionMaxMs: number;
  readonly invitationMs: number;
  readonly passwordResetMs: number;
  /**
   * Requests per second one signed-in user may make with the web application, all their
   * sessions together: their own allowance, since the account's rate limit is the API's.
   */
  readonly sessionRateLimitPerSecond: number;
  /** The sender of invitation and password-reset emails; undefined: herald sends none. */
  readonly emailFrom: { readonly email: string; readonly name: string } | undefined;
}

export type AuthDeps = KeyDeps & { readonly auth: AuthSettings };

/** last_seen_at is written at most this often: a request a second costs one write a minute. */
const TOUCH_EVERY_MS = 60_000;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
// Session, invitation and password-reset tokens are random and stored hashed, not signed
// (domain/signed-token.ts): each is looked up in the store anyway, to be revoked, used once or voided.
export const newToken = (): string => randomBytes(32).toString('base64url');

export function csrfTokenOf(deps: Pick<KeyDeps, 'signingSecret'>, sessionToken: string): string {
  return createHmac('sha256', deps.signingSecret).update(`csrf\0${sessionToken}`).digest('base64url');
}

/** Constant-time comparison of the header's token with the session's. */
export function csrfMatches(deps: Pick<KeyDeps, 'signingSecret'>, sessionToken: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = createHash('sha256').update(csrfTokenOf(deps, sessionToken)).digest();
  return timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
}

/** An operator console session: no user, the admin token was its credential. */
export type OperatorSessionRecord = Omit<SessionRecord, 'userId'>;

export interface StartedSession<S = SessionRecord> {
  /** The cookie's value: in the Set-Cookie header of this answer only. */
  readonly token: string;
  readonly csrfToken: string;
  readonly session: S;
}

/**
 * A new session for the user (a new id at every sign-in), and the sign-in recorded;
 * undefined when the user's account is gone.
 */
export async function startUserSession(deps: AuthDeps, user: User): Promise<(StartedSession & { account: Account }) | undefined> {
  const account = await findAccount(deps.db, user.accountId);
  if (account === undefined) return undefined;
  const now = deps.clock();
  const token = newToken();
  const session: SessionRecord = { id: deps.newId(), userId: user.id, createdAt: now, lastSeenAt: now, expiresAt: now + deps.auth.sessionMaxMs };
  await insertUserSession(deps.db, { id: session.id, tokenHash: hashToken(token), userId: user.id, createdAt: now, expiresAt: session.expiresAt });
  await recordSignIn(deps.db, user.id, now);
  return { token, csrfToken: csrfTokenOf(deps, token), session, account };
}

export interface SignedIn {
  readonly user: User;
  readonly account: Account;
  readonly session: SessionRecord;
}

/** The signed-in user behind a cookie's value, or undefined when the session is over (or never was). */
export async function resolveUserSession(deps: AuthDeps, token: string): Promise<SignedIn | undefined> {
  const now = deps.clock();
  const session = await findLiveUserSession(deps.db, hashToken(token), now, deps.auth.sessionIdleMs);
  if (session === undefined) return undefined;
  const user = await findUser(deps.db, session.userId);
  if (user === undefined || user.passwordHash === null) return undefined;
  const account = await findAccount(deps.db, user.accountId);
  if (account === undefined) return undefined;
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await touchSession(deps.db, 'sessions', session.id, now);
  return { user, account, session };
}

export async function endUserSession(deps: AuthDeps, sessionId: string): Promise<void> {
  await endSession(deps.db, 'sessions', sessionId, deps.clock());
}

export async function signOutEverywhere(deps: AuthDeps, userId: string): Promise<void> {
  await endUserSessions(deps.db, userId, deps.clock());
}

// ---- the operator console ----

export async function startOperatorSession(deps: AuthDeps): Promise<StartedSession<OperatorSessionRecord>> {
  const now = deps.clock();
  const token = newToken();
  const session = { id: deps.newId(), createdAt: now, lastSeenAt: now, expiresAt: now + deps.auth.sessionMaxMs };
  await insertOperatorSession(deps.db, { id: session.id, tokenHash: hashToken(token), createdAt: now, expiresAt: session.expiresAt });
  return { token, csrfToken: csrfTokenOf(deps, token), session };
}

export async function resolveOperatorSession(deps: AuthDeps, token: string): Promise<OperatorSessionRecord | undefined> {
  const now = deps.clock();
  const session = await findLiveOperatorSession(deps.db, hashToken(token), now, deps.auth.sessionIdleMs);
  if (session !== undefined && now - session.lastSeenAt >= TOUCH_EVERY_MS) await touchSession(deps.db, 'operator_sessions', session.id, now);
  return session;
}

export async function endOperatorSession(deps: AuthDeps, sessionId: string): Promise<void> {
  await endSession(deps.db, 'operator_sessions', sessionId, deps.clock());
}
