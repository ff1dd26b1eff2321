import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { setCsrfToken } from '../api/http.ts';
import { fetchOperatorSession, OPERATOR_SESSION_KEY, operatorSignOut } from '../api/operator/session.ts';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { LeaveForSignIn, useSessionEnd } from './session-end.ts';
import { NavFrame, type NavItem } from './nav-frame.tsx';

// Labels are keys of the `session` catalogue, translated by NavFrame.
const NAV: readonly NavItem[] = [
  { to: '/operator', label: 'nav.accounts', end: true },
  { to: '/operator/health', label: 'nav.health' },
];

/** Where the console's sign-in sends the operator back to, and whether it says the session ended. */
export function operatorSignInPath(location: { pathname: string; search: string }, expired: boolean): string {
  const params = new URLSearchParams({ next: `${location.pathname}${location.search}` });
  if (expired) params.set('expired', '1');
  return `/operator/sign-in?${params.toString()}`;
}

/**
 * The operator console: signed in with the admin token; a 401 sends the operator to sign
 * in with a notice and back, by the one render without a session (as the account's shell).
 */
export function OperatorShell() {
  const { t } = useTranslation('session');
  const session = useQuery({ queryKey: OPERATOR_SESSION_KEY, queryFn: fetchOperatorSession, retry: false, staleTime: 60_000 });
  const location = useLocation();
  const client = useQueryClient();
  const end = useSessionEnd('operator', OPERATOR_SESSION_KEY, session.data);

  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location.pathname]);

  const signOut = useMutation({
    mutationFn: () => {
      end.signingOut();
      return operatorSignOut();
    },
    onSettled: () => {
      setCsrfToken('operator', undefined);
      client.clear();
      client.setQueryData(OPERATOR_SESSION_KEY, null);
    },
  });

  if (session.isPending) return <div className="centered"><Loading label={t('shell.openingConsole')} /></div>;
  if (session.isError) return <div className="centered"><ErrorNotice error={session.error} onRetry={() => void session.refetch()} /></div>;
  if (session.data === null) return <LeaveForSignIn to={end.leaveTo('/operator/sign-in', (ended) => operatorSignInPath(location, ended))} />;
  return (
    <NavFrame brand="herald" subtitle={t('shell.console')} nav={NAV}
      user={<button type="button" className="button secondary small" onClick={() => signOut.mutate()}>{t('shell.signOut')}</button>}>
      <Outlet />
    </NavFrame>
  );
}
