import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { setCsrfToken } from '../../api/http.ts';
import { OPERATOR_SESSION_KEY, operatorSignIn } from '../../api/operator/session.ts';
import { AuthCard } from '../../components/auth-card.tsx';
import { TextField } from '../../components/field.tsx';
import { ErrorNotice } from '../../components/query-state.tsx';

/** The operator signs in with the admin token (HERALD_ADMIN_TOKEN, or the one printed at first start). */
export default function OperatorSignInPage() {
  const { t } = useTranslation('session');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [token, setToken] = useState('');
  const next = params.get('next');
  const signIn = useMutation({
    mutationFn: () => operatorSignIn(token),
    onSuccess: (session) => {
      setCsrfToken('operator', session.csrf_token);
      client.setQueryData(OPERATOR_SESSION_KEY, session);
      navigate(next !== null && next.startsWith('/operator') ? next : '/operator', { replace: true });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <AuthCard title={t('operator.title')} footer={<Link to="/sign-in">{t('operator.accountSignIn')}</Link>}>
      {params.get('expired') === '1' ? <p className="notice" role="status">{t('operator.ended')}</p> : null}
      <form onSubmit={submit} noValidate>
        <TextField label={t('operator.token')} type="password" autoComplete="current-password" value={token} onChange={(e) => setToken(e.target.value)}
          hint={t('operator.tokenHint')} required />
        {signIn.isError ? <ErrorNotice error={signIn.error} /> : null}
        <button type="submit" className="button wide" disabled={signIn.isPending || token === ''}>{t('signIn.submit')}</button>
      </form>
    </AuthCard>
  );
}
