import type { FastifyInstance, FastifyReply } from 'fastify';
import { csrfTokenOf, endUserSession, signOutEverywhere } from '../../app/sessions.ts';
import { changeOwnPassword } from '../../app/users.ts';
import { confirmTotp, disableTotp, startTotpSetup } from '../../app/two-factor.ts';
import type { RouteAccess } from '../../domain/access.ts';
import type { Result } from '../../domain/result.ts';
import { ErrorBody } from '../schemas/errors.ts';
import { ChangePasswordRequest, MeChange, Session, TotpCodeRequest, TotpSetup } from '../schemas/sessions.ts';
import { setOwnLocale } from '../../app/user-locale.ts';
import { refuseAttempt, type LadderName } from '../plugins/attempt-throttle.ts';
import { clearSessionCookie } from '../plugins/session-cookie.ts';
import { signedInOf } from '../route-access.ts';
import { sendRejection } from '../wire-errors.ts';
import { sessionBody } from '../../app/user-view.ts';
import { passwordRule } from './sign-in.ts';
import type { RouteDeps } from '../route-deps.ts';

// The signed-in user's own session and settings (sessionOnly: an API key has no "me").
// Any role may call them; the user acts on nobody but themselves. The checks a session
// could be used to guess behind (the current password, two-factor codes) take a try
// from the user's counter first (http/plugins/attempt-throttle.ts) and give it back only
// when the guess was right.

const tags = ['session'];
const config = { access: { scope: 'account', access: 'read' } satisfies RouteAccess, sessionOnly: true };
const noContent = { 204: { type: 'null', description: 'Done' } } as const;
const throttled = { 429: { description: '`Too many attempts, try again later`; Retry-After says when', ...ErrorBody } };
const wrongCode = (result: Result<void>): boolean => !result.ok && result.rejection.code === 'totpIncorrect';

export function meRoutes(app: FastifyInstance, httpDeps: RouteDeps): void {
  const deps = httpDeps.app;
  const throttle = httpDeps.attemptThrottle;
  /** Runs the check with one try of the user's counter: 429 while it must wait; the try comes back unless `wrong` says it was a wrong guess. */
  const guarded = async <T>(
    reply: FastifyReply, ladder: LadderName, userId: string, check: () => Promise<T>, wrong: (outcome: T) => boolean,
  ): Promise<{ outcome: T } | FastifyReply> => {
    const attempt = await throttle.take([{ ladder, key: userId }]);
    if (!attempt.allowed) return refuseAttempt(reply, attempt, 'attemptsThrottled');
    const outcome = await check();
    if (!wrong(outcome)) await attempt.succeeded();
    return { outcome };
  };
  app.get('/v1/session', {
    config, schema: { summary: 'The signed-in user, the account, and the CSRF token of this session', tags, response: { 200: Session } },
  }, async (request, reply) => {
    const { account, principal } = signedInOf(request);
    return reply.code(200).send(sessionBody(principal.user, account, csrfTokenOf(deps, principal.token), principal.session.expiresAt));
  });

  app.patch<{ Body: MeChange }>('/v1/me', {
    config,
    schema: {
      summary: 'Change the signed-in user\'s own settings: the language (`locale`) of the web application and of herald\'s emails to them',
      tags, body: MeChange, response: { 200: Session, 400: ErrorBody },
    },
  }, async (request, reply) => {
    const { account, principal } = signedInOf(request);
    const user = await setOwnLocale(deps, principal.user, request.body.locale);
    return reply.code(200).send(sessionBody(user, account, csrfTokenOf(deps, principal.token), principal.session.expiresAt));
  });

  app.post('/v1/auth/sign-out', {
    config, schema: { summary: 'End this session', tags, response: noContent },
  }, async (request, reply) => {
    await endUserSession(deps, signedInOf(request).principal.session.id);
    return clearSessionCookie(reply, deps).code(204).send();
  });

  app.post('/v1/me/sign-out-everywhere', {
    config, schema: { summary: 'End every session of the signed-in user, this one included', tags, response: noContent },
  }, async (request, reply) => {
    await signOutEverywhere(deps, signedInOf(request).principal.user.id);
    return clearSessionCookie(reply, deps).code(204).send();
  });

  app.post<{ Body: ChangePasswordRequest }>('/v1/me/password', {
    config,
    schema: {
      summary: 'Change the password; every other session of the user ends', tags, body: ChangePasswordRequest,
      response: { ...noContent, 400: ErrorBody, ...throttled },
    },
  }, async (request, reply) => {
        const password = passwordRule('new_password', request.body.new_password);
    if (!password.ok) return sendRejection(reply, password.rejection);
    const { principal } = signedInOf(request);
    const changed = await guarded(
      reply, 'currentPassword', principal.user.id,
      () => changeOwnPassword(deps, principal.user, principal.session.id, request.body.current_password, password.value),
      (result) => !result.ok && result.rejection.code === 'currentPasswordIncorrect',
    );
    if (!('outcome' in changed)) return changed;
    return changed.outcome.ok ? reply.code(204).send() : sendRejection(reply, changed.outcome.rejection);
  });

  app.post('/v1/me/totp', {
    config, schema: { summary: 'Start setting up two-factor sign-in: a new secret, pending until confirmed', tags, response: { 200: TotpSetup, 409: ErrorBody } },
  }, async (request, reply) => {
    const setup = await startTotpSetup(deps, signedInOf(request).principal.user);
    if (!setup.ok) return sendRejection(reply, setup.rejection);
    return reply.code(200).send({ secret: setup.value.secret, otpauth_url: setup.value.otpauthUrl });
  });

  app.post<{ Body: TotpCodeRequest }>('/v1/me/totp/confirm', {
    config,
    schema: {
      summary: 'Turn two-factor sign-in on with a code made from the pending secret', tags, body: TotpCodeRequest,
      response: { ...noContent, 400: ErrorBody, 401: { description: '`Incorrect two-factor code`', ...ErrorBody }, 409: ErrorBody, ...throttled },
    },
  }, async (request, reply) => {
        const { user } = signedInOf(request).principal;
    const confirmed = await guarded(reply, 'totp', user.id, () => confirmTotp(deps, user, request.body.code), wrongCode);
    if (!('outcome' in confirmed)) return confirmed;
    return confirmed.outcome.ok ? reply.code(204).send() : sendRejection(reply, confirmed.outcome.rejection);
  });

  app.delete<{ Body: TotpCodeRequest }>('/v1/me/totp', {
    config,
    schema: {
      summary: 'Turn two-factor sign-in off, with a current code', tags, body: TotpCodeRequest,
      response: { ...noContent, 400: ErrorBody, 401: { description: '`Incorrect two-factor code`', ...ErrorBody }, 409: ErrorBody, ...throttled },
    },
  }, async (request, reply) => {
        const { user } = signedInOf(request).principal;
    const disabled = await guarded(reply, 'totp', user.id, () => disableTotp(deps, user, request.body.code), wrongCode);
    if (!('outcome' in disabled)) return disabled;
    return disabled.outcome.ok ? reply.code(204).send() : sendRejection(reply, disabled.outcome.rejection);
  });
}
