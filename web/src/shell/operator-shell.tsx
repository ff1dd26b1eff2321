import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { onSessionExpired } from '../api/http.ts';
import { forgetOperatorSession, restoreOperatorSession } from '../api/operator-session.ts';
import { NavFrame, type NavItem } from './nav-frame.tsx';

const NAV: readonly NavItem[] = [
  { to: '/operator', label: 'Accounts', end: true },
  { to: '/operator/health', label: 'Service health' },
];

const signInPath = (location: { pathname: string; search: string }): string =>
  `/operator/sign-in?next=${encodeURIComponent(`${location.pathname}${location.search}`)}`;

/** The operator console: signed in with the admin token; a 401 sends the operator back to sign in. */
export function OperatorShell() {
  const [signedIn] = useState(restoreOperatorSession);
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();

  useEffect(() => onSessionExpired((realm) => {
    if (realm !== 'operator') return;
    forgetOperatorSession();
    client.clear();
    navigate(signInPath(location), { replace: true });
  }), [client, navigate, location]);

  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location.pathname]);

  if (!signedIn) return <Navigate to={signInPath(location)} replace />;
  return (
    <NavFrame
      brand="herald"
      subtitle="Operator console"
      nav={NAV}
      user={(
        <button type="button" className="button secondary small" onClick={() => {
          forgetOperatorSession();
          client.clear();
          navigate('/operator/sign-in', { replace: true });
        }}>Sign out</button>
      )}
    >
      <Outlet />
    </NavFrame>
  );
}
