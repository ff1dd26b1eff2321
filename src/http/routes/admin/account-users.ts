import type { FastifyInstance } from 'fastify';
import { accountExists } from '../../../app/account-view.ts';
import { inviteUser, listAccountUsers } from '../../../app/users.ts';
import { ErrorBody } from '../../schemas/errors.ts';
import { InvitedUser, NewUserRequest, UserList } from '../../schemas/users.ts';
import { sendRejection } from '../../wire-errors.ts';
import { invitationLocale } from '../../request-locale.ts';
import { invitedBody, userBody } from '../../../app/user-view.ts';
import type { RouteDeps } from '../../route-deps.ts';

// The users of an account, for the operator: list them, and invite one (how an
// account gets its first owner; `herald users invite` does the same).

const tags = ['admin'];
const security = [{ adminToken: [] }];
type AccountParams = { Params: { id: string } };
const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'Account id' } } } as const;
const notFound = { 404: { description: 'No such account', ...ErrorBody } };

export function accountUserRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get<AccountParams>('/admin/v1/accounts/:id/users', {
    schema: { summary: 'The account\'s users, invited ones included', tags, security, params, response: { 200: UserList, ...notFound } },
  }, async (request, reply) => {
    if (!(await accountExists(deps, request.params.id))) return sendRejection(reply, { code: 'notFound' });
    const users = await listAccountUsers(deps, request.params.id);
    return reply.code(200).send({ users: users.map(userBody) });
  });

  app.post<AccountParams & { Body: NewUserRequest }>('/admin/v1/accounts/:id/users', {
    schema: {
      summary: 'Invite a user to the account (the first owner, typically): the one-time link is in this answer only', tags, security, params,
      body: NewUserRequest,
      response: { 201: InvitedUser, 400: ErrorBody, ...notFound, 409: { description: '`A user with this email already exists`', ...ErrorBody } },
    },
  }, async (request, reply) => {
        if (!(await accountExists(deps, request.params.id))) return sendRejection(reply, { code: 'notFound' });
    const invited = await inviteUser(deps, request.params.id, { ...request.body, locale: invitationLocale(request) });
    if (!invited.ok) return sendRejection(reply, invited.rejection);
    deps.metrics.invitationObserved(invited.value.emailSent ? 'emailed' : 'not-emailed');
    return reply.code(201).send(invitedBody(invited.value));
  });
}
