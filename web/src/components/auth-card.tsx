import { useEffect, type ReactNode } from 'react';

/** The centred card of the pages one sees before signing in. */
export function AuthCard(props: { title: string; children: ReactNode; footer?: ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · herald`;
  }, [props.title]);
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <p className="auth-brand"><span className="logo" aria-hidden="true">✉</span> herald</p>
        <h1>{props.title}</h1>
        {props.children}
      </div>
      {props.footer === undefined ? null : <div className="auth-footer">{props.footer}</div>}
    </main>
  );
}
