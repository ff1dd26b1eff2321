import type { FastifyInstance } from 'fastify';
import { changeUserRole, inviteUser, listAccountUsers, removeUser } from '../../app/users.ts';
import type { RouteAccess } from '../../domain/access.ts';
import { ErrorBody } from '../schemas/errors.ts';
import { Session } from '../schemas/sessions.ts';
import { InvitedUser, NewUserRequest, RoleChangeRequest, UserList, UserView } from '../schemas/users.ts';
import { refuseAttempt } from '../plugins/attempt-throttle.ts';
import { signInKeyOf } from '../../app/sign-in.ts';
import { callerOf } from '../route-access.ts';
import { invitationLocale } from '../request-locale.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import { invitedBody, userBody, type InvitedUserBody, type SessionBody, type UserBody } from '../../app/user-view.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's users (owners, and keys with the `account` scope): list with who is
// signed in, invite (the link is in the answer, and emailed when herald has a sender),
// change a role, remove. Another account's user ids answer 404. Each invitation may
// send an email from herald's own sender, so invitations are counted per account and
// per address within the account (http/plugins/attempt-throttle.ts) and the outcome is
// a metric (herald_invitations_total). The address is counted within the account only:
// a count shared by every account would tell one that another had invited the address.

// The use cases' wire bodies are the contract's shapes, both ways (a compile-time check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [Same<SessionBody, Session>, Same<UserBody, UserView>, Same<InvitedUserBody, InvitedUser>] = [true, true, true];
void sameShapes;

const tags = ['users'];
const config = { access: { scope: 'account', access: 'owner' } satisfies RouteAccess };
type UserParams = { Params: { userId: string } };
const params = { type: 'object', required: ['userId'], properties: { userId: { type: 'string', description: 'The user' } } } as const;
const notFound = { 404: { description: '`Not found`: no such user in this account', ...ErrorBody } };
const lastOwner = { 409: { description: '`The account must keep an owner who can sign in`', ...ErrorBody } };

export function userRoutes(app: FastifyInstance, httpDeps: RouteDeps): void {
  const deps = httpDeps.app;
  app.get('/v1/users', {
    config, schema: { summary: 'The account\'s users, invited ones included, with their live sessions', tags, response: { 200: UserList } },
  }, async (request, reply) => {
    const users = await listAccountUsers(deps, callerOf(request).account.id);
    return reply.code(200).send({ users: users.map(userBody) });
  });

  app.post<{ Body: NewUserRequest }>('/v1/users', {
    config,
    schema: {
      summary: 'Invite a user (or invite again one who has not accepted): the one-time link is in this answer only', tags, body: NewUserRequest,
      response: {
        201: InvitedUser, 400: ErrorBody,
        409: { description: '`A user with this email already exists` (in this account: an address that signs in to another is invited like any other)', ...ErrorBody },
        429: { description: '`Too many invitations, try again later`; Retry-After says when', ...ErrorBody },
      },
    },
  }, async (request, reply) => {
        const accountId = callerOf(request).account.id;
    const taken = await httpDeps.attemptThrottle.take([
      { ladder: 'inviteAccount', key: accountId },
      { ladder: 'inviteAddress', key: `${accountId}|${signInKeyOf(request.body.email)}` },
    ]);
    if (!taken.allowed) {
      deps.metrics.invitationObserved('throttled');
      return refuseAttempt(reply, taken, 'invitationsThrottled');
    }
    const invited = await inviteUser(deps, accountId, { ...request.body, locale: invitationLocale(request) });
    if (!invited.ok) {
      // A refused invitation sent nothing: it does not count.
      await taken.succeeded();
      return sendRejection(reply, invited.rejection);
    }
    deps.metrics.invitationObserved(invited.value.emailSent ? 'emailed' : 'not-emailed');
    return reply.code(201).send(invitedBody(invited.value));
  });

  app.patch<UserParams & { Body: RoleChangeRequest }>('/v1/users/:userId', {
    config,
    schema: {
      summary: 'Change a user\'s role; it applies to their next request', tags, params, body: RoleChangeRequest,
      response: { 200: UserView, 400: ErrorBody, ...notFound, ...lastOwner },
    },
  }, async (request, reply) => {
        const changed = await changeUserRole(deps, callerOf(request).account.id, request.params.userId, request.body.role);
    return changed.ok ? reply.code(200).send(userBody(changed.value)) : sendRejection(reply, changed.rejection);
  });

  app.delete<UserParams>('/v1/users/:userId', {
    config,
    schema: {
      summary: 'Remove a user: their sessions end at once', tags, params,
      response: { 204: { type: 'null', description: 'Removed' }, ...notFound, ...lastOwner },
    },
  }, async (request, reply) => sendResult(reply, await removeUser(deps, callerOf(request).account.id, request.params.userId), 204));
}
