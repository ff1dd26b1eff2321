import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { completePasswordReset, requestPasswordReset } from '../api/auth.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { TextField } from '../components/field.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { SetPasswordForm } from '../components/set-password-form.tsx';

/** Ask for a reset link, or (with the link's token) choose the new password. */
export default function PasswordResetPage() {
  const token = decodeURIComponent(useLocation().hash.slice(1));
  return token === '' ? <RequestReset /> : <ChooseNewPassword token={token} />;
}

function RequestReset() {
  const { t } = useTranslation('session');
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: () => requestPasswordReset(email) });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    request.mutate();
  };
  return (
    <AuthCard title={t('reset.title')} footer={<Link to="/sign-in">{t('reset.backToSignIn')}</Link>}>
      {/* The server's words: without a sender herald says no link can be emailed, never that one is on its way. */}
      {request.isSuccess ? <p className={request.data.email_enabled ? 'notice' : 'state error'} role="status">{request.data.message}</p> : (
        <form onSubmit={submit} noValidate>
          <p>{t('reset.explain')}</p>
          <TextField label={t('signIn.email')} type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
          {request.isError ? <ErrorNotice error={request.error} /> : null}
          <button type="submit" className="button wide" disabled={request.isPending || email.trim() === ''}>{t('reset.send')}</button>
        </form>
      )}
    </AuthCard>
  );
}

function ChooseNewPassword(props: { token: string }) {
  const { t } = useTranslation('session');
  return (
    <AuthCard title={t('reset.chooseTitle')} footer={<Link to="/sign-in">{t('reset.backToSignIn')}</Link>}>
      <SetPasswordForm setPassword={(password) => completePasswordReset(props.token, password)} />
    </AuthCard>
  );
}
