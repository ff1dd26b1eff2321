import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { changePassword, confirmTotp, disableTotp, signOutEverywhere, startTotp } from '../api/account.ts';
import { setCsrfToken } from '../api/http.ts';
import { SESSION_KEY, useSession } from '../api/session.ts';
import type { TotpSetup } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { PASSWORD_MIN, passwordProblem } from '../lib/password.ts';

/** The signed-in user's own settings: password, two-factor, sessions. */
export default function ProfilePage() {
  const session = useSession();
  const user = session.data?.user;
  if (user === undefined) return null;
  return (
    <Page title="Your profile" description={<>{user.email}, {user.role} of {session.data?.account.name}</>}>
      <ChangePassword />
      <TwoFactor enabled={user.totp_enabled} />
      <SignOutEverywhere />
    </Page>
  );
}

function ChangePassword() {
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
    <Section title="Password">
      <form onSubmit={submit} noValidate className="narrow">
        <TextField label="Current password" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)}
          error={touched && current === '' ? 'Enter your current password' : undefined} />
        <TextField label="New password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)}
          hint={`At least ${PASSWORD_MIN} characters. Your other sessions end.`} error={touched && problem?.field === 'password' ? problem.text : undefined} />
        <TextField label="Repeat the new password" type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)}
          error={touched && problem?.field === 'repeat' ? problem.text : undefined} />
        {change.isError ? <ErrorNotice error={change.error} /> : null}
        {change.isSuccess ? <p className="notice" role="status">Password changed.</p> : null}
        <button type="submit" className="button" disabled={change.isPending}>Change password</button>
      </form>
    </Section>
  );
}

function TwoFactor(props: { enabled: boolean }) {
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
    <Section title="Two-factor sign-in">
      {props.enabled ? <p>On: sign-in asks for a code from your authenticator app.</p> : <p>Off. With it on, sign-in also asks for a six-digit code from an authenticator app (RFC 6238).</p>}
      {!props.enabled && setup === undefined ? <button type="button" className="button secondary" disabled={start.isPending} onClick={() => start.mutate()}>Set up two-factor sign-in</button> : null}
      {start.isError ? <ErrorNotice error={start.error} /> : null}
      {setup !== undefined || props.enabled ? (
        <form onSubmit={submit} noValidate className="narrow">
          {setup === undefined ? null : (
            <>
              <p>Add this key to your authenticator app (or open the link on your phone), then enter the code it shows.</p>
              <CopyValue value={setup.secret} label="the two-factor key" />
              <p><a href={setup.otpauth_url}>Open in an authenticator app</a></p>
            </>
          )}
          <TextField label="Code from the app" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
          {confirm.isError ? <ErrorNotice error={confirm.error} /> : null}
          {disable.isError ? <ErrorNotice error={disable.error} /> : null}
          <button type="submit" className={props.enabled ? 'button danger' : 'button'} disabled={code.trim() === ''}>{props.enabled ? 'Turn two-factor off' : 'Turn two-factor on'}</button>
        </form>
      ) : null}
    </Section>
  );
}

function SignOutEverywhere() {
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
    <Section title="Sessions">
      <p>Signed in somewhere you no longer use? End every session of yours, this one too.</p>
      {everywhere.isError ? <ErrorNotice error={everywhere.error} /> : null}
      <button type="button" className="button secondary" disabled={everywhere.isPending} onClick={() => everywhere.mutate()}>Sign out everywhere</button>
    </Section>
  );
}
