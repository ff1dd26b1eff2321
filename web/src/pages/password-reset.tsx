import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api } from '../api/http.ts';
import { useAdoptSession } from '../api/session.ts';
import type { PasswordResetAnswer, Session } from '../api/types.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { TextField } from '../components/field.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { PASSWORD_MIN, passwordProblem } from '../lib/password.ts';

/** Ask for a reset link, or (with the link's token) choose the new password. */
export default function PasswordResetPage() {
  const token = decodeURIComponent(useLocation().hash.slice(1));
  return token === '' ? <RequestReset /> : <ChooseNewPassword token={token} />;
}

function RequestReset() {
  const [email, setEmail] = useState('');
  const request = useMutation({
    mutationFn: () => api<PasswordResetAnswer>('/v1/auth/password-reset', { method: 'POST', body: { email }, quiet401: true }),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    request.mutate();
  };
  return (
    <AuthCard title="Reset your password" footer={<Link to="/sign-in">Back to sign-in</Link>}>
      {/* The server's words: without a sender herald says no link can be emailed, never that one is on its way. */}
      {request.isSuccess ? <p className={request.data.email_enabled ? 'notice' : 'state error'} role="status">{request.data.message}</p> : (
        <form onSubmit={submit} noValidate>
          <p>Enter the address you sign in with: herald emails it a link to set a new password, if it can send email.</p>
          <TextField label="Email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
          {request.isError ? <ErrorNotice error={request.error} /> : null}
          <button type="submit" className="button wide" disabled={request.isPending || email.trim() === ''}>Send the link</button>
        </form>
      )}
    </AuthCard>
  );
}

function ChooseNewPassword(props: { token: string }) {
  const adopt = useAdoptSession();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const reset = useMutation({
    mutationFn: () => api<Session>('/v1/auth/password-reset/complete', { method: 'POST', body: { token: props.token, password }, quiet401: true }),
    onSuccess: (session) => {
      adopt(session);
      navigate('/', { replace: true });
    },
  });
  const problem = passwordProblem(password, repeat);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (problem === undefined) reset.mutate();
  };
  return (
    <AuthCard title="Choose a new password" footer={<Link to="/sign-in">Back to sign-in</Link>}>
      <form onSubmit={submit} noValidate>
        <TextField label="New password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)}
          hint={`At least ${PASSWORD_MIN} characters.`} error={touched && problem?.field === 'password' ? problem.text : undefined} required />
        <TextField label="Repeat the password" type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)}
          error={touched && problem?.field === 'repeat' ? problem.text : undefined} required />
        {reset.isError ? <ErrorNotice error={reset.error} /> : null}
        <button type="submit" className="button wide" disabled={reset.isPending}>Set password and sign in</button>
      </form>
    </AuthCard>
  );
}
