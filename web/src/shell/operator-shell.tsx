import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { onSessionExpired, setCsrfToken } from '../api/http.ts';
import { fetchOperatorSession, OPERATOR_SESSION_KEY, operatorSignOut } from '../api/operator/session.ts';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { NavFrame, type NavItem } from './nav-frame.tsx';

const NAV: readonly NavItem[] = [
  { to: '/operator', label: 'Accounts', end: true },
  { to: '/operator/health', label: 'Service health' },
];

const signInPath = (location: { pathname: string; search: string }): string =>
  `/operator/sign-in?next=${encodeURIComponent(`${location.pathname}${location.search}`)}`;

/** The operator console: signed in with the admin token; a 401 sends the operator back to sign in. */
export function OperatorShell() {
  const session = useQuery({ queryKey: OPERATOR_SESSION_KEY, queryFn: fetchOperatorSession, retry: false, staleTime: 60_000 });
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();

  useEffect(() => onSessionExpired((realm) => {
    if (realm !== 'operator') return;
    setCsrfToken('operator', undefined);
    client.setQueryData(OPERATOR_SESSION_KEY, null);
    navigate(signInPath(location), { replace: true });
  }), [client, navigate, location]);

  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location.pathname]);

  const signOut = useMutation({
    mutationFn: operatorSignOut,
    onSettled: () => {
      setCsrfToken('operator', undefined);
      client.clear();
      navigate('/operator/sign-in', { replace: true });
    },
  });

  if (session.isPending) return <div className="centered"><Loading label="Opening the console…" /></div>;
  if (session.isError) return <div className="centered"><ErrorNotice error={session.error} onRetry={() => void session.refetch()} /></div>;
  if (session.data === null) return <Navigate to={signInPath(location)} replace />;
  return (
    <NavFrame brand="herald" subtitle="Operator console" nav={NAV}
      user={<button type="button" className="button secondary small" onClick={() => signOut.mutate()}>Sign out</button>}>
      <Outlet />
    </NavFrame>
  );
}
