import type { FastifyInstance } from 'fastify';
import { csrfTokenOf, endUserSession, signOutEverywhere, type AuthDeps } from '../../app/sessions.ts';
import { changeOwnPassword } from '../../app/users.ts';
import { confirmTotp, disableTotp, startTotpSetup } from '../../app/two-factor.ts';
import type { RouteAccess } from '../../domain/access.ts';
import { checkBody } from '../../domain/schema-check.ts';
import { ChangePasswordRequest, ErrorBody, Session, TotpCodeRequest, TotpSetup } from '../account-api-schemas.ts';
import { clearSessionCookie } from '../plugins/session-cookie.ts';
import { signedInOf } from '../route-access.ts';
import { sendRejection } from '../wire-errors.ts';
import { sessionBody } from '../../app/user-view.ts';
import { passwordRule } from './sign-in.ts';

// The signed-in user's own session and settings (sessionOnly: an API key has no "me").
// Any role may call them; the user acts on nobody but themselves.

const tags = ['session'];
const config = { access: { scope: 'account', access: 'read' } satisfies RouteAccess, sessionOnly: true };
const noContent = { 204: { type: 'null', description: 'Done' } } as const;

export function meRoutes(app: FastifyInstance, deps: AuthDeps): void {
  app.get('/v1/session', {
    config, schema: { summary: 'The signed-in user, the account, and the CSRF token of this session', tags, response: { 200: Session } },
  }, async (request, reply) => {
    const { account, principal } = signedInOf(request);
    return reply.code(200).send(sessionBody(principal.user, account, csrfTokenOf(deps, principal.token), principal.session.expiresAt));
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

  app.post('/v1/me/password', {
    config,
    schema: {
      summary: 'Change the password; every other session of the user ends', tags, body: ChangePasswordRequest,
      response: { ...noContent, 400: ErrorBody },
    },
  }, async (request, reply) => {
    const input = checkBody(ChangePasswordRequest, request.body);
    if (!input.ok) return sendRejection(reply, input.rejection);
    const password = passwordRule('new_password', input.value.new_password);
    if (!password.ok) return sendRejection(reply, password.rejection);
    const { principal } = signedInOf(request);
    const changed = await changeOwnPassword(deps, principal.user, principal.session.id, input.value.current_password, password.value);
    return changed.ok ? reply.code(204).send() : sendRejection(reply, changed.rejection);
  });

  app.post('/v1/me/totp', {
    config, schema: { summary: 'Start setting up two-factor sign-in: a new secret, pending until confirmed', tags, response: { 200: TotpSetup, 409: ErrorBody } },
  }, async (request, reply) => {
    const setup = await startTotpSetup(deps, signedInOf(request).principal.user);
    if (!setup.ok) return sendRejection(reply, setup.rejection);
    return reply.code(200).send({ secret: setup.value.secret, otpauth_url: setup.value.otpauthUrl });
  });

  app.post('/v1/me/totp/confirm', {
    config,
    schema: {
      summary: 'Turn two-factor sign-in on with a code made from the pending secret', tags, body: TotpCodeRequest,
      response: { ...noContent, 400: ErrorBody, 401: { description: '`Incorrect two-factor code`', ...ErrorBody }, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const input = checkBody(TotpCodeRequest, request.body);
    if (!input.ok) return sendRejection(reply, input.rejection);
    const confirmed = await confirmTotp(deps, signedInOf(request).principal.user, input.value.code);
    return confirmed.ok ? reply.code(204).send() : sendRejection(reply, confirmed.rejection);
  });

  app.delete('/v1/me/totp', {
    config,
    schema: {
      summary: 'Turn two-factor sign-in off, with a current code', tags, body: TotpCodeRequest,
      response: { ...noContent, 400: ErrorBody, 401: { description: '`Incorrect two-factor code`', ...ErrorBody }, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const input = checkBody(TotpCodeRequest, request.body);
    if (!input.ok) return sendRejection(reply, input.rejection);
    const disabled = await disableTotp(deps, signedInOf(request).principal.user, input.value.code);
    return disabled.ok ? reply.code(204).send() : sendRejection(reply, disabled.rejection);
  });
}
