// Signing in and out, and the two ways to set a password with a token (an invitation,
// a reset link). Each is quiet about a 401: a wrong password or token is not an expiry.
import { api } from './http.ts';
import type { Invitation, PasswordResetAnswer, Session, SignInInput } from './types.ts';

export const authKeys = { invitation: (token: string) => ['invitation', token] } as const;

export const signIn = (input: SignInInput) => api<Session>('/v1/auth/sign-in', { method: 'POST', body: input, quiet401: true });

export const signOut = () => api<undefined>('/v1/auth/sign-out', { method: 'POST' });

export const invitationQuery = (token: string) => ({
  queryKey: authKeys.invitation(token),
  queryFn: () => api<Invitation>('/v1/auth/invitation', { method: 'POST', body: { token }, quiet401: true }),
}) as const;

export const acceptInvitation = (token: string, password: string) =>
  api<Session>('/v1/auth/invitation/accept', { method: 'POST', body: { token, password }, quiet401: true });

export const requestPasswordReset = (email: string) =>
  api<PasswordResetAnswer>('/v1/auth/password-reset', { method: 'POST', body: { email }, quiet401: true });

export const completePasswordReset = (token: string, password: string) =>
  api<Session>('/v1/auth/password-reset/complete', { method: 'POST', body: { token, password }, quiet401: true });
