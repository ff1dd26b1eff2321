import type { FastifyInstance, FastifyReply } from 'fastify';
import { requestPasswordResetEvenly } from '../../app/password-reset.ts';
import { checkPassword, checkSecondFactor, needsSecondFactor, signInKeyOf } from '../../app/sign-in.ts';
import { startUserSession, type AuthDeps } from '../../app/sessions.ts';
import { findInvitation, setPasswordByLink } from '../../app/users.ts';
import { reject, type Result } from '../../domain/result.ts';
import type { User } from '../../domain/user.ts';
import { WIRE_TEXTS } from '../../domain/wire-texts.ts';
import { ErrorBody } from '../schemas/errors.ts';
import { InvitationRequest, InvitationView, NewPasswordRequest, PasswordResetAnswer, PASSWORD_MAX, PASSWORD_MIN, PasswordResetRequest, Session, SignInRequest, TotpRequiredError } from '../schemas/sessions.ts';
import { refuseAttempt, takeCredentialTry } from '../plugins/attempt-throttle.ts';
import { setSessionCookie } from '../plugins/session-cookie.ts';
import { sendRejection } from '../wire-errors.ts';
import { requestLocale } from '../request-locale.ts';
import { sessionBody } from '../../app/user-view.ts';
import type { RouteDeps } from '../route-deps.ts';

// The ways into a session, open to anyone (outside the /v1 authentication hook):
// sign-in, and the two emailed links (invitation, password reset). Each answers the
// Session and sets a new session cookie. Tokens of links come in the JSON body, never
// in the URL, so no access log holds them.

const tags = ['sign-in'];
const SIGN_IN_LADDERS = { pair: 'signInPair', ip: 'signInIp', subject: 'signInAddress' } as const;

/** The contract's rule, in code points: 12 to 256. */
export function passwordRule(field: string, password: string): Result<string> {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) return reject('invalidField', { detail: `${field} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` });
  return { ok: true, value: password };
}

export async function signInAnswer(reply: FastifyReply, deps: AuthDeps, user: User): Promise<FastifyReply> {
  const started = await startUserSession(deps, user);
  if (started === undefined) return sendRejection(reply, { code: 'signInFailed' });
  setSessionCookie(reply, deps, started.token);
  return reply.code(200).send(sessionBody(user, started.account, started.csrfToken, started.session.expiresAt));
}

export function signInRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const auth = deps.app;
  const throttle = deps.attemptThrottle;

  app.post<{ Body: SignInRequest }>('/v1/auth/sign-in', {
    schema: {
      summary: 'Sign in with email and password (and the two-factor code when the user has one); sets the session cookie', tags,
      body: SignInRequest,
      response: {
        200: Session,
        400: ErrorBody,
        401: { description: '`Incorrect email or password`, `Incorrect two-factor code`, or `Two-factor code required` with `totp_required: true`', anyOf: [ErrorBody, TotpRequiredError] },
        429: { description: '`Too many sign-in attempts, try again later`; Retry-After says when', ...ErrorBody },
      },
    },
  }, async (request, reply) => {
        const address = signInKeyOf(request.body.email);
    // The try is taken before the password is checked, and given back only if it is right.
    const attempt = await takeCredentialTry(throttle, SIGN_IN_LADDERS, address, request.ip);
    if (!attempt.allowed) return refuseAttempt(reply, attempt, 'signInThrottled');
    const checked = await checkPassword(auth, { email: request.body.email, password: request.body.password });
    if (!checked.ok) return sendRejection(reply, checked.rejection);
    // The password is right: its try comes back.
    await attempt.right();
    const user = checked.value;
    if (needsSecondFactor(user)) {
      const code = request.body.totp_code;
      if (code === undefined || code.trim() === '') return reply.code(401).send({ message: WIRE_TEXTS.totpRequired, totp_required: true });
      // Codes are counted per user, whatever the IP: only someone who knows the password gets this far.
      const codeTry = await throttle.take([{ ladder: 'totp', key: user.id }]);
      if (!codeTry.allowed) return refuseAttempt(reply, codeTry, 'signInThrottled');
      const second = await checkSecondFactor(auth, user, code);
      if (!second.ok) return sendRejection(reply, second.rejection);
      await codeTry.succeeded();
    }
    // Signed in: this IP is known to the address from now on.
    await attempt.remember();
    return signInAnswer(reply, auth, user);
  });

  app.post<{ Body: InvitationRequest }>('/v1/auth/invitation', {
    schema: {
      summary: 'What an invitation link is for (the token after its `#`)', tags,
      body: InvitationRequest,
      response: { 200: InvitationView, 400: ErrorBody, 404: { description: '`This link is invalid, used or expired`', ...ErrorBody } },
    },
  }, async (request, reply) => {
        const found = await findInvitation(auth, request.body.token);
    if (!found.ok) return sendRejection(reply, found.rejection);
    const { user, account, expiresAt } = found.value;
    return reply.code(200).send({ email: user.email, account_name: account.name, role: user.role, expires_at: new Date(expiresAt).toISOString() });
  });

  app.post<{ Body: NewPasswordRequest }>('/v1/auth/invitation/accept', {
    schema: {
      summary: 'Accept an invitation: set the password and sign in (the link works once)', tags,
      body: NewPasswordRequest,
      response: {
        200: Session, 400: ErrorBody, 404: { description: '`This link is invalid, used or expired`', ...ErrorBody },
        409: { description: '`This address already signs in to herald: ask for an invitation to another address` (the link stays unused)', ...ErrorBody },
      },
    },
  }, async (request, reply) => setPasswordAnswer(request.body, 'invitation', reply));

  app.post<{ Body: PasswordResetRequest }>('/v1/auth/password-reset', {
    schema: {
      summary: 'Ask for a password-reset link by email; the answer is the same whether or not the address has a user, and so is its time', tags,
      body: PasswordResetRequest,
      response: { 202: PasswordResetAnswer, 400: ErrorBody, 429: { description: '`Too many sign-in attempts, try again later`; Retry-After says when', ...ErrorBody } },
    },
  }, async (request, reply) => {
        // Every request counts (each may send an email): per address, so one inbox is not flooded, and per IP.
    const taken = await throttle.take([{ ladder: 'resetAddress', key: signInKeyOf(request.body.email) }, { ladder: 'resetIp', key: request.ip }]);
    if (!taken.allowed) return refuseAttempt(reply, taken, 'signInThrottled');
    await requestPasswordResetEvenly(auth, request.body.email, (error) => {
      auth.metrics.unexpectedError('request');
      request.log.error({ err: error }, 'password reset failed');
    }, requestLocale(request));
    const enabled = auth.auth.emailFrom !== undefined;
    return reply.code(202).send({ message: enabled ? WIRE_TEXTS.passwordResetSent : WIRE_TEXTS.passwordResetNoSender, email_enabled: enabled });
  });

  app.post<{ Body: NewPasswordRequest }>('/v1/auth/password-reset/complete', {
    schema: {
      summary: 'Set a new password with a password-reset link and sign in; every other session of the user ends', tags,
      body: NewPasswordRequest,
      response: { 200: Session, 400: ErrorBody, 404: { description: '`This link is invalid, used or expired`', ...ErrorBody } },
    },
  }, async (request, reply) => setPasswordAnswer(request.body, 'password_reset', reply));

  async function setPasswordAnswer(input: NewPasswordRequest, purpose: 'invitation' | 'password_reset', reply: FastifyReply): Promise<FastifyReply> {
    const password = passwordRule('password', input.password);
    if (!password.ok) return sendRejection(reply, password.rejection);
    const user = await setPasswordByLink(auth, input.token, purpose, password.value);
    if (!user.ok) return sendRejection(reply, user.rejection);
    return signInAnswer(reply, auth, user.value);
  }
}
