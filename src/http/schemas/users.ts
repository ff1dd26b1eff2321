// The users of an account (/v1/users, owner only; /admin/v1/accounts/:id/users for the operator).
import { Type, type Static } from '@sinclair/typebox';
import { INVITATION_PAGE } from '../../domain/user.ts';
import { Id, Nullable, Timestamp } from './common.ts';

export const USER_ROLES = ['owner', 'developer', 'viewer'] as const;
export const UserRole = Type.Union(USER_ROLES.map((role) => Type.Literal(role)), {
  description: 'viewer: reads; developer: reads and writes; owner: everything, users and the IP allow-list included',
});
export type UserRole = Static<typeof UserRole>;

export const UserView = Type.Object({
  user_id: Id('The user'),
  email: Type.String({ format: 'email' }),
  role: UserRole,
  status: Type.Union([Type.Literal('invited'), Type.Literal('active')], { description: 'invited: has not set a password yet' }),
  totp_enabled: Type.Boolean(),
  created_at: Timestamp(),
  last_sign_in_at: Nullable(Timestamp()),
  active_sessions: Type.Integer({ minimum: 0, description: 'Sessions not yet ended or expired' }),
});
export type UserView = Static<typeof UserView>;

export const UserList = Type.Object({ users: Type.Array(UserView) });
export type UserList = Static<typeof UserList>;

export const NewUserRequest = Type.Object({
  email: Type.String({ maxLength: 320 }),
  role: Type.Optional(Type.Union(USER_ROLES.map((role) => Type.Literal(role)), {
    description: 'Required for someone new. Inviting again a person who has not accepted keeps their role unless one is given',
  })),
}, { additionalProperties: false });
export type NewUserRequest = Static<typeof NewUserRequest>;

/** A user just invited (or invited again): the one-time link is in this answer only. */
export const InvitedUser = Type.Object({
  user_id: Id('The user'),
  email: Type.String({ format: 'email' }),
  role: UserRole,
  status: Type.Literal('invited'),
  invitation_url: Type.String({ description: `<public URL>${INVITATION_PAGE}#<token>; one use; shown here once` }),
  invitation_expires_at: Timestamp(),
  email_sent: Type.Boolean({ description: 'Whether the link was emailed to the user. false: herald has no sender (HERALD_AUTH_EMAIL_FROM unset): hand them the link yourself' }),
});
export type InvitedUser = Static<typeof InvitedUser>;

export const RoleChangeRequest = Type.Object({ role: UserRole }, { additionalProperties: false });
export type RoleChangeRequest = Static<typeof RoleChangeRequest>;
