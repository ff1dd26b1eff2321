import { useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'react-router';
import { acceptInvitation, invitationQuery } from '../api/auth.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { QueryState } from '../components/query-state.tsx';
import { SetPasswordForm } from '../components/set-password-form.tsx';

/** Following an invitation link: choose a password, and be signed in. */
export default function InvitationPage() {
  const token = decodeURIComponent(useLocation().hash.slice(1));
  const invitation = useQuery({ ...invitationQuery(token), enabled: token !== '' });
  return (
    <AuthCard title="Accept your invitation" footer={<Link to="/sign-in">Sign in instead</Link>}>
      {token === '' ? <p className="state error" role="alert">This link is incomplete: open the whole link from the invitation email.</p> : (
      <QueryState query={invitation}>
        {(found) => (
          <SetPasswordForm setPassword={(password) => acceptInvitation(token, password)}>
            <p>You are invited to <strong>{found.account_name}</strong> as <strong>{found.role}</strong>, signing in as <strong>{found.email}</strong>. Choose a password to finish.</p>
            <input type="email" name="username" autoComplete="username" value={found.email} readOnly hidden />
          </SetPasswordForm>
        )}
      </QueryState>
      )}
    </AuthCard>
  );
}
