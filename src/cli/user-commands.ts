import { accountExists } from '../app/account-view.ts';
import { invitedBody, userBody } from '../app/user-view.ts';
import { changeUserRole, inviteUser, listAccountUsers, removeUser } from '../app/users.ts';
import { ROLES, type Role } from '../domain/access.ts';
import { reject } from '../domain/result.ts';
import { choiceFlag, printed, storeCommand, str, type Values } from './command-kit.ts';
import * as human from './human-output.ts';

// `users …`: the people who sign in to an account's web application
// (docs/users-and-sessions.md). The same rules as the API: an account keeps an owner.

const account = (values: Values): string => str(values.account) ?? '';
const role = (values: Values): Role | undefined => choiceFlag(values, 'role', ROLES);

export const userInvite = storeCommand({
  usage: 'users invite --account ACCOUNT_ID --email EMAIL --role owner|developer|viewer [--json]',
  summary: 'Invite a user: prints the one-time link that lets them set a password',
  options: { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
  flagOf: { email: 'email', role: 'role' },
  async run(deps, _args, values) {
    const chosen = role(values);
    if (chosen === undefined) return reject('invalidField', { detail: 'role: must be one of: owner, developer, viewer' });
    if (!(await accountExists(deps, account(values)))) return reject('notFound');
    const invited = await inviteUser(deps, account(values), { email: str(values.email) ?? '', role: chosen });
    if (!invited.ok) return invited;
    const body = invitedBody(invited.value);
    // The link is the whole point of the command: printed once, never logged or stored.
    return printed(body, [
      `Invited ${body.email} as ${body.role} (user ${body.user_id}).`,
      `Send them this link; it works once, until ${body.invitation_expires_at}:`,
      body.invitation_url,
    ]);
  },
});

export const userList = storeCommand({
  usage: 'users list --account ACCOUNT_ID [--json]',
  summary: 'An account\'s users, invited ones included, with their role and sessions',
  options: { account: { type: 'string' } },
  async run(deps, _args, values) {
    if (!(await accountExists(deps, account(values)))) return reject('notFound');
    const users = (await listAccountUsers(deps, account(values))).map(userBody);
    return printed({ users }, human.userListText(users));
  },
});

export const userRole = storeCommand({
  usage: 'users role --account ACCOUNT_ID --user USER_ID --role owner|developer|viewer [--json]',
  summary: 'Change a user\'s role (the account keeps an owner who can sign in)',
  options: { account: { type: 'string' }, user: { type: 'string' }, role: { type: 'string' } },
  async run(deps, _args, values) {
    const chosen = role(values);
    if (chosen === undefined) return reject('invalidField', { detail: 'role: must be one of: owner, developer, viewer' });
    const changed = await changeUserRole(deps, account(values), str(values.user) ?? '', chosen);
    if (!changed.ok) return changed;
    const body = userBody(changed.value);
    return printed(body, [`User ${body.user_id} (${body.email}) is now ${body.role}.`]);
  },
});

export const userRemove = storeCommand({
  usage: 'users remove --account ACCOUNT_ID --user USER_ID [--json]',
  summary: 'Remove a user and end their sessions in every process',
  options: { account: { type: 'string' }, user: { type: 'string' } },
  async run(deps, _args, values) {
    const userId = str(values.user) ?? '';
    const removed = await removeUser(deps, account(values), userId);
    return removed.ok ? printed({ user_id: userId, removed: true }, [`User ${userId} removed.`]) : removed;
  },
});
