// The account's users (/v1/users): invitations, roles, removal.
import { api } from './http.ts';
import type { AccountUser, Role, UserInvited, UserList } from './types.ts';

const userPath = (userId: string): string => `/v1/users/${encodeURIComponent(userId)}`;

export const userKeys = { all: ['users'] } as const;

export const usersQuery = { queryKey: userKeys.all, queryFn: () => api<UserList>('/v1/users') } as const;

/** No role: inviting again someone who has not accepted keeps theirs. */
export const inviteUser = (email: string, role: Role | undefined) =>
  api<UserInvited>('/v1/users', { method: 'POST', body: role === undefined ? { email } : { email, role } });

export const changeRole = (userId: string, role: Role) => api<AccountUser>(userPath(userId), { method: 'PATCH', body: { role } });

export const removeUser = (userId: string) => api<undefined>(userPath(userId), { method: 'DELETE' });
