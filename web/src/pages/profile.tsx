import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { changePassword, confirmTotp, disableTotp, signOutEverywhere, startTotp } from '../api/account.ts';
import { setCsrfToken } from '../api/http.ts';
import { SESSION_KEY, useSession } from '../api/session.ts';
import type { TotpSetup } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { SelectField, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { PASSWORD_MAX, PASSWORD_MIN, passwordProblem } from '../lib/password.ts';
import { chooseLanguage, currentLanguage, LANGUAGE_NAMES, LANGUAGES, type Language } from '../i18n/i18n.ts';
import { saveUserLanguage } from '../i18n/user-language.ts';

/** The signed-in user's own settings: language, password, two-factor, sessions. */
export default function ProfilePage() {
  const { t } = useTranslation('profile');
  const session = useSession();
  const user = session.data?.user;
  if (user === undefined) return null;
  return (
    <Page title={t('title')} description={t('description', { email: user.email, role: t(`roles.${user.role}`), account: session.data?.account.name ?? '' })}>
      <LanguageSetting />
      <ChangePassword />
      <TwoFactor enabled={user.totp_enabled} />
      <SignOutEverywhere />
    </Page>
  );
}

/** The language select: switches the application at once and stores the choice for the user (and herald's emails to them). */
function LanguageSetting() {
  const { t } = useTranslation('profile');
  const client = useQueryClient();
  const [language, setLanguage] = useState<Language>(currentLanguage());
  const save = useMutation({
    mutationFn: saveUserLanguage,
    onSuccess: (session) => client.setQueryData(SESSION_KEY, session),
  });
  const change = (value: Language): void => {
    setLanguage(value);
    void chooseLanguage(value);
    save.mutate(value);
  };
  return (
    <Section title={t('language.title')} id="language">
      <div className="narrow">
        <SelectField label={t('language.label')} hint={t('language.hint')} value={language} onChange={(e) => change(e.target.value as Language)}>
          {LANGUAGES.map((code) => <option key={code} value={code} lang={code}>{LANGUAGE_NAMES[code]}</option>)}
        </SelectField>
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        {save.isSuccess ? <p className="notice" role="status">{t('language.saved')}</p> : null}
      </div>
    </Section>
  );
}

function ChangePassword() {
  const { t } = useTranslation('profile');
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const change = useMutation({
    mutationFn: () => changePassword(current, password),
    onSuccess: () => { setCurrent(''); setPassword(''); setRepeat(''); setTouched(false); },
  });
  const problem = passwordProblem(password, repeat);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (problem === undefined && current !== '') change.mutate();
  };
  return (
    <Section title={t('password.title')} id="password">
      <form onSubmit={submit} noValidate className="narrow">
        <TextField label={t('password.current')} type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)}
          error={touched && current === '' ? t('password.currentMissing') : undefined} />
        <TextField label={t('password.new')} type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)}
          hint={t('password.newHint', { min: PASSWORD_MIN })} error={touched && problem?.field === 'password' ? t('password.length', { min: PASSWORD_MIN, max: PASSWORD_MAX }) : undefined} />
        <TextField label={t('password.repeat')} type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)}
          error={touched && problem?.field === 'repeat' ? t('password.differ') : undefined} />
        {change.isError ? <ErrorNotice error={change.error} /> : null}
        {change.isSuccess ? <p className="notice" role="status">{t('password.changed')}</p> : null}
        <button type="submit" className="button" disabled={change.isPending}>{t('password.submit')}</button>
      </form>
    </Section>
  );
}

function TwoFactor(props: { enabled: boolean }) {
  const { t } = useTranslation('profile');
  const client = useQueryClient();
  const [setup, setSetup] = useState<TotpSetup | undefined>();
  const [code, setCode] = useState('');
  const refresh = (): void => void client.invalidateQueries({ queryKey: SESSION_KEY });
  const start = useMutation({ mutationFn: startTotp, onSuccess: setSetup });
  const confirm = useMutation({
    mutationFn: () => confirmTotp(code.trim()),
    onSuccess: () => { setSetup(undefined); setCode(''); refresh(); },
  });
  const disable = useMutation({
    mutationFn: () => disableTotp(code.trim()),
    onSuccess: () => { setCode(''); refresh(); },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (props.enabled) disable.mutate();
    else confirm.mutate();
  };
  return (
    <Section title={t('totp.title')} id="two-factor">
      <p>{props.enabled ? t('totp.on') : t('totp.off')}</p>
      {!props.enabled && setup === undefined ? <button type="button" className="button secondary" disabled={start.isPending} onClick={() => start.mutate()}>{t('totp.setUp')}</button> : null}
      {start.isError ? <ErrorNotice error={start.error} /> : null}
      {setup !== undefined || props.enabled ? (
        <form onSubmit={submit} noValidate className="narrow">
          {setup === undefined ? null : (
            <>
              <p>{t('totp.addKey')}</p>
              <CopyValue value={setup.secret} label={t('totp.keyLabel')} />
              <p><a href={setup.otpauth_url}>{t('totp.openApp')}</a></p>
            </>
          )}
          <TextField label={t('totp.code')} inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
          {confirm.isError ? <ErrorNotice error={confirm.error} /> : null}
          {disable.isError ? <ErrorNotice error={disable.error} /> : null}
          <button type="submit" className={props.enabled ? 'button danger' : 'button'} disabled={code.trim() === ''}>{props.enabled ? t('totp.turnOff') : t('totp.turnOn')}</button>
        </form>
      ) : null}
    </Section>
  );
}

function SignOutEverywhere() {
  const { t } = useTranslation('profile');
  const client = useQueryClient();
  const navigate = useNavigate();
  const everywhere = useMutation({
    mutationFn: signOutEverywhere,
    onSuccess: () => {
      setCsrfToken('account', undefined);
      client.clear();
      client.setQueryData(SESSION_KEY, null);
      navigate('/sign-in', { replace: true });
    },
  });
  return (
    <Section title={t('sessions.title')} id="sessions">
      <p>{t('sessions.body')}</p>
      {everywhere.isError ? <ErrorNotice error={everywhere.error} /> : null}
      <button type="button" className="button secondary" disabled={everywhere.isPending} onClick={() => everywhere.mutate()}>{t('sessions.signOutEverywhere')}</button>
    </Section>
  );
}
