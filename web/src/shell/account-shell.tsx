import * as Ariakit from '@ariakit/react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { signOut as endSession } from '../api/auth.ts';
import { onSessionExpired, setCsrfToken } from '../api/http.ts';
import { allows, SESSION_KEY, useSession } from '../api/session.ts';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { NavFrame, type NavItem } from './nav-frame.tsx';

const NAV: readonly NavItem[] = [
  { to: '/', label: 'Overview', end: true },
  { to: '/messages', label: 'Messages' },
  { to: '/conversations', label: 'Conversations' },
  { to: '/templates', label: 'Templates' },
  { to: '/lists', label: 'Lists' },
  { to: '/segments', label: 'Segments' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/domains', label: 'Domains' },
  { to: '/api-keys', label: 'API keys' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/suppressions', label: 'Suppressions' },
  { to: '/usage', label: 'Usage' },
];

/** Where sign-in sends the user back to. */
export function signInPath(location: { pathname: string; search: string }, expired: boolean): string {
  const next = `${location.pathname}${location.search}`;
  const params = new URLSearchParams();
  if (next !== '/') params.set('next', next);
  if (expired) params.set('expired', '1');
  const query = params.toString();
  return query === '' ? '/sign-in' : `/sign-in?${query}`;
}

/** The account's pages: only with a session; an ended session sends the user to sign in and back. */
export function AccountShell() {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();

  useEffect(() => onSessionExpired((realm) => {
    if (realm !== 'account') return;
    setCsrfToken('account', undefined);
    client.setQueryData(SESSION_KEY, null);
    navigate(signInPath(location, true), { replace: true });
  }), [client, navigate, location]);

  // Focus the page's main region on navigation, so keyboard and screen-reader users land on it.
  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location.pathname]);

  const signOut = useMutation({
    mutationFn: endSession,
    onSettled: () => {
      setCsrfToken('account', undefined);
      client.clear();
      client.setQueryData(SESSION_KEY, null);
      navigate('/sign-in', { replace: true });
    },
  });

  if (session.isPending) return <div className="centered"><Loading label="Opening your account…" /></div>;
  if (session.isError) return <div className="centered"><ErrorNotice error={session.error} onRetry={() => void session.refetch()} /></div>;
  if (session.data === null) return <Navigate to={signInPath(location, false)} replace />;

  const { user, account } = session.data;
  const nav = allows(user.role, 'owner') ? [...NAV, { to: '/users', label: 'Users' }] : NAV;
  return (
    <NavFrame
      brand="herald"
      subtitle={account.name}
      nav={nav}
      user={(
        <Ariakit.MenuProvider>
          <Ariakit.MenuButton className="user-button">
            <span className="user-email">{user.email}</span> <span className="role">{user.role}</span>
            <Ariakit.MenuButtonArrow />
          </Ariakit.MenuButton>
          <Ariakit.Menu gutter={6} className="menu">
            <Ariakit.MenuItem className="menu-item" onClick={() => navigate('/profile')}>Your profile</Ariakit.MenuItem>
            <Ariakit.MenuItem className="menu-item" onClick={() => signOut.mutate()}>Sign out</Ariakit.MenuItem>
          </Ariakit.Menu>
        </Ariakit.MenuProvider>
      )}
    >
      <Outlet />
    </NavFrame>
  );
}
