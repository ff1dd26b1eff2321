import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useAdoptSession } from '../api/session.ts';
import type { Session } from '../api/types.ts';
import { PASSWORD_MAX, PASSWORD_MIN, passwordProblem } from '../lib/password.ts';
import { TextField } from './field.tsx';
import { ErrorNotice } from './query-state.tsx';

/**
 * Choosing a password with a token (an invitation, a reset link): the password twice,
 * checked here first, then herald opens a session and the user lands on the overview.
 * `children` come first in the form (what the token is for).
 */
export function SetPasswordForm(props: { setPassword: (password: string) => Promise<Session>; children?: ReactNode }) {
  const { t } = useTranslation('session');
  const adopt = useAdoptSession();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const save = useMutation({
    mutationFn: () => props.setPassword(password),
    onSuccess: (session) => {
      adopt(session);
      navigate('/', { replace: true });
    },
  });
  const problem = passwordProblem(password, repeat);
  // The rule's own words are English (lib/password.ts): the form says them in the chosen language.
  const problemText = problem === undefined ? undefined
    : problem.field === 'password' ? t('password.length', { min: PASSWORD_MIN, max: PASSWORD_MAX }) : t('password.differ');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (problem === undefined) save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      {props.children}
      <TextField label={t('password.new')} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)}
        hint={t('password.hint', { min: PASSWORD_MIN })} error={touched && problem?.field === 'password' ? problemText : undefined} required />
      <TextField label={t('password.repeat')} type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)}
        error={touched && problem?.field === 'repeat' ? problemText : undefined} required />
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      <button type="submit" className="button wide" disabled={save.isPending}>{t('password.submit')}</button>
    </form>
  );
}
