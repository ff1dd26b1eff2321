import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api } from '../api/http.ts';
import { useAdoptSession } from '../api/session.ts';
import type { Invitation, Session } from '../api/types.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { TextField } from '../components/field.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { PASSWORD_MIN, passwordProblem } from '../lib/password.ts';

/** Following an invitation link: choose a password, and be signed in. */
export default function InvitationPage() {
  const token = decodeURIComponent(useLocation().hash.slice(1));
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => api<Invitation>('/v1/auth/invitation', { method: 'POST', body: { token }, quiet401: true }),
    enabled: token !== '',
  });
  const adopt = useAdoptSession();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const accept = useMutation({
    mutationFn: () => api<Session>('/v1/auth/invitation/accept', { method: 'POST', body: { token, password }, quiet401: true }),
    onSuccess: (session) => {
      adopt(session);
      navigate('/', { replace: true });
    },
  });
  const problem = passwordProblem(password, repeat);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (problem === undefined) accept.mutate();
  };

  return (
    <AuthCard title="Accept your invitation" footer={<Link to="/sign-in">Sign in instead</Link>}>
      {token === '' ? <p className="state error" role="alert">This link is incomplete: open the whole link from the invitation email.</p> : (
      <QueryState query={invitation}>
        {(found) => (
          <form onSubmit={submit} noValidate>
            <p>You are invited to <strong>{found.account_name}</strong> as <strong>{found.role}</strong>, signing in as <strong>{found.email}</strong>. Choose a password to finish.</p>
            <input type="email" name="username" autoComplete="username" value={found.email} readOnly hidden />
            <TextField label="New password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)}
              hint={`At least ${PASSWORD_MIN} characters.`} error={touched && problem?.field === 'password' ? problem.text : undefined} required />
            <TextField label="Repeat the password" type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)}
              error={touched && problem?.field === 'repeat' ? problem.text : undefined} required />
            {accept.isError ? <ErrorNotice error={accept.error} /> : null}
            <button type="submit" className="button wide" disabled={accept.isPending}>Set password and sign in</button>
          </form>
        )}
      </QueryState>
      )}
    </AuthCard>
  );
}
