import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { accountKeys, accountQuery } from '../api/account.ts';
import { allows, useSession } from '../api/session.ts';
import { Page } from '../components/page.tsx';
import { QueryState } from '../components/query-state.tsx';
import { ChoiceGroup } from './compose-parts.tsx';
import { ComposeEmail } from './compose-email.tsx';
import { ComposeSms } from './compose-sms.tsx';
import { ComposeWhatsapp } from './compose-whatsapp.tsx';
import './compose.css';

const CHANNELS = ['email', 'sms', 'whatsapp'] as const;
type ComposeChannel = (typeof CHANNELS)[number];

/**
 * Write and send one message: an email (direct or from a stored template), an SMS or a
 * WhatsApp template message, with its cost shown before sending. The channel is in the
 * address (?channel=sms), so a link opens the right form.
 */
export default function ComposePage() {
  const { t } = useTranslation('compose');
  const [params, setParams] = useSearchParams();
  const asked = params.get('channel');
  const channel: ComposeChannel = CHANNELS.find((c) => c === asked) ?? 'email';
  const account = useQuery(accountQuery);
  const session = useSession();
  const canSend = allows(session.data?.user.role ?? 'viewer', 'write');
  const client = useQueryClient();
  // What is left changes with every send: the quote reads it again.
  const onSent = (): void => void client.invalidateQueries({ queryKey: accountKeys.account });

  return (
    <Page title={t('title')} description={t('description')}>
      <div className="card compose">
        {canSend ? null : <p className="state warning" role="note">{t('readOnly')}</p>}
        <ChoiceGroup legend={t('channel')} name="compose-channel" value={channel}
          onChange={(c) => setParams(c === 'email' ? {} : { channel: c }, { replace: true })}
          options={[{ value: 'email', label: t('channels.email') }, { value: 'sms', label: t('channels.sms') }, { value: 'whatsapp', label: t('channels.whatsapp') }]} />
        <QueryState query={account}>
          {(data) => {
            switch (channel) {
              case 'sms': return <ComposeSms key="sms" account={data} onSent={onSent} />;
              case 'whatsapp': return <ComposeWhatsapp key="whatsapp" account={data} onSent={onSent} />;
              default: return <ComposeEmail key="email" account={data} onSent={onSent} />;
            }
          }}
        </QueryState>
      </div>
    </Page>
  );
}
