import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { signIn as startSession } from '../api/auth.ts';
import { ApiError } from '../api/http.ts';
import { useAdoptSession, useSession } from '../api/session.ts';
import type { SignInInput } from '../api/types.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { TextField } from '../components/field.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { safeNext } from '../lib/safe-next.ts';

/** Email and password, then the two-factor code when the user has one. */
export function SignInPage() {
  const { t } = useTranslation('session');
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const session = useSession();
  const adopt = useAdoptSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);

  const signIn = useMutation({
    mutationFn: (input: SignInInput) => startSession(input),
    onSuccess: (result) => {
      adopt(result);
      navigate(next, { replace: true });
    },
    onError: (error) => {
      if (error instanceof ApiError && typeof error.body === 'object' && error.body !== null && (error.body as { totp_required?: unknown }).totp_required === true) {
        setNeedsCode(true);
      }
    },
  });

  if (session.data && !signIn.isPending && !signIn.isSuccess) return <Navigate to={next} replace />;

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    signIn.mutate(needsCode ? { email, password, totp_code: code.trim() } : { email, password });
  };
  const totpPrompt = signIn.error instanceof ApiError && signIn.error.message === 'Two-factor code required';

  return (
    <AuthCard title={needsCode ? t('signIn.codeTitle') : t('signIn.title')} footer={<Link to="/operator/sign-in">{t('signIn.operatorConsole')}</Link>}>
      {params.get('expired') === '1' && !needsCode ? <p className="notice" role="status">{t('signIn.ended')}</p> : null}
      <form onSubmit={submit} noValidate>
        {needsCode ? (
          <>
            <p>{t('signIn.codeExplain', { email })}</p>
            <TextField label={t('signIn.code')} name="totp" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]*" maxLength={10}
              value={code} onChange={(e) => setCode(e.target.value)} required autoFocus />
          </>
        ) : (
          <>
            <TextField label={t('signIn.email')} type="email" name="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
            <TextField label={t('signIn.password')} type="password" name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          </>
        )}
        {signIn.isError && !totpPrompt ? <ErrorNotice error={signIn.error} /> : null}
        <button type="submit" className="button wide" disabled={signIn.isPending}>{signIn.isPending ? t('signIn.signingIn') : needsCode ? t('signIn.verify') : t('signIn.submit')}</button>
      </form>
      <p className="auth-links">
        {needsCode
          ? <button type="button" className="link-button" onClick={() => { setNeedsCode(false); setCode(''); signIn.reset(); }}>{t('signIn.anotherAccount')}</button>
          : <Link to="/password-reset">{t('signIn.forgot')}</Link>}
      </p>
    </AuthCard>
  );
}
