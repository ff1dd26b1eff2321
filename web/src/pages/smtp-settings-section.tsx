import { useQuery } from '@tanstack/react-query';
import { Trans, useTranslation } from 'react-i18next';
import { allows, useSession } from '../api/session.ts';
import { smtpSettingsQuery } from '../api/smtp-settings.ts';
import type { SmtpPort, SmtpSettings } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { Section } from '../components/page.tsx';
import { QueryState } from '../components/query-state.tsx';

// SMTP submission (issue 22) on the API keys page: the password is an API key, so the
// settings sit beside the form that makes one. The server decides what is shown.

export function SmtpSettingsSection() {
  const { t } = useTranslation('keys');
  const settings = useQuery(smtpSettingsQuery);
  return (
    <Section title={t('smtp.title')} id="send-by-smtp">
      <p className="lede">{t('smtp.lede')}</p>
      <QueryState query={settings}>
        {(data) => (data.enabled ? <Settings settings={data} /> : (
          <p className="notice"><Trans t={t} i18nKey="smtp.disabled" components={{ code: <code /> }} /></p>
        ))}
      </QueryState>
    </Section>
  );
}

/** What each port's TLS mode is called in a mailer's settings. */
function useSecurityName(): (security: SmtpPort['security']) => string {
  const { t } = useTranslation('keys');
  return (security) => (security === 'starttls' ? 'STARTTLS' : security === 'tls' ? t('smtp.security.tls') : t('smtp.security.none'));
}

function Settings(props: { settings: SmtpSettings }) {
  const { t } = useTranslation('keys');
  const securityName = useSecurityName();
  const role = useSession().data?.user.role ?? 'viewer';
  const { host, ports, username, loopbackOnly } = props.settings;
  return (
    <>
      <dl className="facts">
        <div className="full"><dt>{t('smtp.host')}</dt><dd><CopyValue value={host ?? ''} label={t('smtp.hostLabel')} /></dd></div>
        <div>
          <dt>{t('smtp.port', { count: ports.length })}</dt>
          <dd>
            <ul className="plain-list">
              {ports.map((p) => <li key={p.port}><strong>{p.port}</strong>: {securityName(p.security)}</li>)}
            </ul>
          </dd>
        </div>
        <div><dt>{t('smtp.username')}</dt><dd><code>{username}</code></dd></div>
        <div className="full">
          <dt>{t('smtp.password')}</dt>
          <dd>
            {allows(role, 'write')
              ? <Trans t={t} i18nKey="smtp.passwordCanMake" components={{ code: <code />, keyForm: <a href="#create-a-key-heading" /> }} />
              : <Trans t={t} i18nKey="smtp.passwordCannotMake" values={{ role }} components={{ code: <code /> }} />}
            {' '}{t('smtp.testKey')}
          </dd>
        </div>
      </dl>
      {loopbackOnly ? <p className="hint">{t('smtp.loopbackOnly')}</p> : null}
    </>
  );
}
