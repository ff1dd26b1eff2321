import { useQuery } from '@tanstack/react-query';
import { allows, useSession } from '../api/session.ts';
import { smtpSettingsQuery } from '../api/smtp-settings.ts';
import type { SmtpPort, SmtpSettings } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { Section } from '../components/page.tsx';
import { QueryState } from '../components/query-state.tsx';

// SMTP submission (issue 22) on the API keys page: the password is an API key, so the
// settings sit beside the form that makes one. The server decides what is shown.

/** What each port's TLS mode is called in a mailer's settings. */
const SECURITY: Readonly<Record<SmtpPort['security'], string>> = {
  starttls: 'STARTTLS',
  tls: 'TLS from the first byte (often called SSL/TLS)',
  none: 'no TLS (plain SMTP)',
};

export function SmtpSettingsSection() {
  const settings = useQuery(smtpSettingsQuery);
  return (
    <Section title="Send by SMTP">
      <p className="lede">Applications that send mail by SMTP (a framework&rsquo;s mailer, a CMS, a printer) can send through herald with these settings.</p>
      <QueryState query={settings}>
        {(data) => (data.enabled ? <Settings settings={data} /> : (
          <p className="notice">SMTP submission is not enabled on this server; the operator sets <code>HERALD_SUBMISSION_PORT</code>.</p>
        ))}
      </QueryState>
    </Section>
  );
}

function Settings(props: { settings: SmtpSettings }) {
  const role = useSession().data?.user.role ?? 'viewer';
  const { host, ports, username, loopbackOnly } = props.settings;
  return (
    <>
      <dl className="facts">
        <div className="full"><dt>Host</dt><dd><CopyValue value={host ?? ''} label="the SMTP host" /></dd></div>
        <div>
          <dt>{ports.length === 1 ? 'Port' : 'Ports'}</dt>
          <dd>
            <ul className="plain-list">
              {ports.map((p) => <li key={p.port}><strong>{p.port}</strong>: {SECURITY[p.security]}</li>)}
            </ul>
          </dd>
        </div>
        <div><dt>User name</dt><dd><code>{username}</code></dd></div>
        <div className="full">
          <dt>Password</dt>
          <dd>
            An API key with the <code>email</code> scope
            {allows(role, 'write')
              ? <>: make one under <a href="#create-a-key-heading">Create a key</a>, above.</>
              : <>: your role ({role}) cannot make one; ask a developer or an owner of the account.</>}
            {' '}A test key&rsquo;s mail is captured, never sent.
          </dd>
        </div>
      </dl>
      {loopbackOnly
        ? <p className="hint">This server has no TLS certificate for submission: it accepts the API key (SMTP AUTH) only from programs on the server itself.</p>
        : null}
    </>
  );
}
