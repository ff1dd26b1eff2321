import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api, ApiError, IP_NOT_ALLOWED, setCsrfToken } from './http.ts';
import type { Role, Session } from './types.ts';
import { adoptUserLanguage } from '../i18n/user-language.ts';

export const SESSION_KEY = ['session'] as const;

/** The signed-in user, or null when there is no session (no cookie, or it ended). */
export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async (): Promise<Session | null> => {
      try {
        const session = await api<Session>('/v1/session', { quiet401: true });
        setCsrfToken('account', session.csrf_token, session.user.user_id);
        adoptUserLanguage(session);
        return session;
      } catch (error) {
        // 401 (expired) and 403 (no session cookie) both mean: sign in. An address outside the
        // allow-list is not: signing in again would only come back here, so the shell says why.
        if (error instanceof ApiError && (error.status === 401 || (error.status === 403 && error.message !== IP_NOT_ALLOWED))) {
          setCsrfToken('account', undefined);
          return null;
        }
        throw error;
      }
    },
    retry: false,
    staleTime: 60_000,
  });
}

/** Stores a fresh session (sign-in, invitation, reset) so the shell sees it at once. */
export function useAdoptSession(): (session: Session) => void {
  const client = useQueryClient();
  return useCallback((session: Session) => {
    setCsrfToken('account', session.csrf_token, session.user.user_id);
    adoptUserLanguage(session);
    client.clear();
    client.setQueryData(SESSION_KEY, session);
  }, [client]);
}

export type Access = 'read' | 'write' | 'owner';
const LEVEL: Record<Role, number> = { viewer: 0, developer: 1, owner: 2 };
const NEEDED: Record<Access, number> = { read: 0, write: 1, owner: 2 };

/** What the contract lets a role do: viewer reads, developer writes, owner does everything. */
export function allows(role: Role, access: Access): boolean {
  return LEVEL[role] >= NEEDED[access];
}
