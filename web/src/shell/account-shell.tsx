import * as Ariakit from '@ariakit/react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { signOut as endSession } from '../api/auth.ts';
import { setCsrfToken } from '../api/http.ts';
import { allows, SESSION_KEY, useSession } from '../api/session.ts';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { LeaveForSignIn, useSessionEnd } from './session-end.ts';
import { NavFrame, type NavItem } from './nav-frame.tsx';
import { LiveUpdates } from '../components/live-updates.tsx';

// Labels are keys of the `session` catalogue (nav.*), translated by NavFrame.
const NAV: readonly NavItem[] = [
  { to: '/', label: 'nav.overview', end: true },
  { to: '/compose', label: 'nav.compose' },
  { to: '/messages', label: 'nav.messages' },
  { to: '/conversations', label: 'nav.conversations' },
  { to: '/templates', label: 'nav.templates' },
  { to: '/whatsapp-templates', label: 'nav.whatsappTemplates' },
  { to: '/lists', label: 'nav.lists' },
  { to: '/segments', label: 'nav.segments' },
  { to: '/campaigns', label: 'nav.campaigns' },
  { to: '/domains', label: 'nav.domains' },
  { to: '/api-keys', label: 'nav.apiKeys' },
  { to: '/webhooks', label: 'nav.webhooks' },
  { to: '/suppressions', label: 'nav.suppressions' },
  { to: '/usage', label: 'nav.usage' },
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

/**
 * The account's pages: only with a session; an ended session sends the user to sign in
 * with a notice and back. The one way out is the render without a session below, whatever
 * noticed the end (a page's request, the session's look-up), so no two navigations race.
 */
export function AccountShell() {
  const { t } = useTranslation('session');
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const end = useSessionEnd('account', SESSION_KEY, session.data);

  // Focus the page's main region on navigation, so keyboard and screen-reader users land on it.
  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [location.pathname]);

  const signOut = useMutation({
    mutationFn: () => {
      end.signingOut();
      return endSession();
    },
    onSettled: () => {
      setCsrfToken('account', undefined);
      client.clear();
      client.setQueryData(SESSION_KEY, null);
    },
  });

  if (session.isPending) return <div className="centered"><Loading label={t('shell.opening')} /></div>;
  if (session.isError) return <div className="centered"><ErrorNotice error={session.error} onRetry={() => void session.refetch()} /></div>;
  if (session.data === null) return <LeaveForSignIn to={end.leaveTo('/sign-in', (ended) => signInPath(location, ended))} />;

  const { user, account } = session.data;
  const nav = allows(user.role, 'owner') ? [...NAV, { to: '/users', label: 'nav.users' }] : NAV;
  return (
    <NavFrame
      brand="herald"
      subtitle={account.name}
      nav={nav}
      user={(
        <Ariakit.MenuProvider>
          <Ariakit.MenuButton className="user-button">
            <span className="user-email">{user.email}</span> <span className="role">{t(`role.${user.role}`)}</span>
            <Ariakit.MenuButtonArrow />
          </Ariakit.MenuButton>
          <Ariakit.Menu gutter={6} className="menu">
            <Ariakit.MenuItem className="menu-item" onClick={() => navigate('/profile')}>{t('shell.profile')}</Ariakit.MenuItem>
            <Ariakit.MenuItem className="menu-item" onClick={() => signOut.mutate()}>{t('shell.signOut')}</Ariakit.MenuItem>
          </Ariakit.Menu>
        </Ariakit.MenuProvider>
      )}
    >
      <LiveUpdates />
      <Outlet />
    </NavFrame>
  );
}
