// How a shell (the account's, the console's) meets the end of its session: whatever
// noticed it (a page's request, the session's look-up) leaves the session null, and the
// shell's render without a session is then the one way to sign-in, so no two navigations race.
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { markSessionEnded, onSessionExpired, sessionEnded, setCsrfToken, type Realm } from '../api/http.ts';
import { allowNextLeave } from '../lib/form-draft.ts';

export interface SessionEnd {
  /** Called as the user signs out: the way to sign-in is then plain, with no notice. */
  readonly signingOut: () => void;
  /** Where the render without a session goes: `plain` after a sign-out, else `signIn(ended)`. */
  readonly leaveTo: (plain: string, signIn: (ended: boolean) => string) => string;
}

/** Clears the realm's session (kept under `queryKey`, now `data`) when herald says it is over. */
export function useSessionEnd(realm: Realm, queryKey: QueryKey, data: unknown): SessionEnd {
  const client = useQueryClient();
  const hadSession = useRef(false);
  const signingOut = useRef(false);
  useEffect(() => onSessionExpired((ended) => {
    if (ended !== realm) return;
    setCsrfToken(realm, undefined);
    client.setQueryData(queryKey, null);
  }), [client, realm, queryKey]);
  useEffect(() => {
    if (data === null || data === undefined) return;
    hadSession.current = true;
    markSessionEnded(realm, false);
  }, [realm, data]);
  return {
    signingOut: () => { signingOut.current = true; },
    // Ended rather than never begun: herald said so, or this tab had the session until now.
    leaveTo: (plain, signIn) => (signingOut.current ? plain : signIn(sessionEnded(realm) || hadSession.current)),
  };
}

/**
 * Goes to a sign-in page, past any page's "unsaved edits" question: the page's draft is
 * kept in the tab, and signing in brings the user back to it.
 */
export function LeaveForSignIn(props: { to: string }) {
  const navigate = useNavigate();
  useEffect(() => {
    allowNextLeave();
    void navigate(props.to, { replace: true });
  }, [navigate, props.to]);
  return null;
}
