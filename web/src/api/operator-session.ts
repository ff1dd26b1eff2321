import { setCsrfToken } from './http.ts';

// The operator console's CSRF token lives for the tab (sessionStorage): the admin
// session cookie itself is HttpOnly, and there is no route that reads the token back.
const KEY = 'herald.operator.csrf';

export function restoreOperatorSession(): boolean {
  const token = sessionStorage.getItem(KEY) ?? undefined;
  setCsrfToken('operator', token);
  return token !== undefined;
}

export function adoptOperatorSession(token: string): void {
  sessionStorage.setItem(KEY, token);
  setCsrfToken('operator', token);
}

export function forgetOperatorSession(): void {
  sessionStorage.removeItem(KEY);
  setCsrfToken('operator', undefined);
}
