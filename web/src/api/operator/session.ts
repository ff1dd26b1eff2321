// The operator's session (cookie herald_admin_session): looked up, opened with the admin
// token, closed. The operator realm has its own CSRF token.
import { api, ApiError, setCsrfToken } from '../http.ts';
import type { OperatorSession } from '../types.ts';

export const OPERATOR_SESSION_KEY = ['operator', 'session'] as const;

/** The operator's session, or null when there is none. */
export async function fetchOperatorSession(): Promise<OperatorSession | null> {
  try {
    const session = await api<OperatorSession>('/admin/v1/session', { realm: 'operator', quiet401: true });
    setCsrfToken('operator', session.csrf_token);
    return session;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      setCsrfToken('operator', undefined);
      return null;
    }
    throw error;
  }
}

export const operatorSignIn = (token: string) =>
  api<OperatorSession>('/admin/v1/session', { method: 'POST', body: { token }, realm: 'operator', quiet401: true });

export const operatorSignOut = () => api<undefined>('/admin/v1/session', { method: 'DELETE', realm: 'operator', quiet401: true });
