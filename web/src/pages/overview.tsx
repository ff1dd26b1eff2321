import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { accountQuery } from '../api/account.ts';
import { domainsQuery } from '../api/domains.ts';
import { usageQuery } from '../api/usage.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { formatCount, formatMoney, formatRate } from '../lib/format.ts';
import { OverviewActivity } from './overview-activity.tsx';

// The chart library is loaded only when there is something to draw.
const UsageChart = lazy(() => import('./overview-chart.tsx'));

function Stat(props: { label: string; value: string; note?: string }) {
  return (
    <div className="stat">
      <dt>{props.label}</dt>
      <dd>{props.value}{props.note === undefined ? null : <span className="stat-note">{props.note}</span>}</dd>
    </div>
  );
}

export default function OverviewPage() {
  const { t } = useTranslation('live');
  // Asked again on every visit: what was sent since the last one must show (the default 10 s
  // staleness would keep an empty overview after a first send).
  const account = useQuery({ ...accountQuery, staleTime: 0 });
  const usage = useQuery({ ...usageQuery(30), staleTime: 0 });

  return (
    <Page title={t('overview.title')} description={t('overview.description')}>
      <Section title={t('overview.glance')}>
        {account.isPending || usage.isPending ? <Loading /> : account.isError ? <ErrorNotice error={account.error} onRetry={() => void account.refetch()} />
          : usage.isError ? <ErrorNotice error={usage.error} onRetry={() => void usage.refetch()} /> : (
            <dl className="stats">
              <Stat label={t('overview.messagesLeft')} value={formatCount(account.data.messages_left)} note={t('overview.messagesLeftNote')} />
              <Stat label={t('overview.balance')} value={formatMoney(account.data.balance)} note={t('overview.balanceNote', { price: formatMoney(account.data.whatsapp_price) })} />
              <Stat label={t('overview.sentToday')} value={formatCount(usage.data.today.email + usage.data.today.sms + usage.data.today.whatsapp)}
                note={t('overview.sentTodayNote', { email: formatCount(usage.data.today.email), sms: formatCount(usage.data.today.sms), whatsapp: formatCount(usage.data.today.whatsapp) })} />
              <Stat label={t('overview.bounceRate')} value={formatRate(usage.data.bounce_rate)} note={t('overview.rateNote')} />
              <Stat label={t('overview.complaintRate')} value={formatRate(usage.data.complaint_rate)} note={t('overview.rateNote')} />
            </dl>
          )}
      </Section>
      <Section title={t('activity.title')}>
        <OverviewActivity />
      </Section>
      <Section title={t('overview.last30')}>
        <QueryState
          query={usage}
          isEmpty={(data) => data.days.every((day) => day.email.accepted + day.sms.accepted + day.whatsapp.accepted === 0)}
          empty={<FirstSend />}
        >
          {(data) => <Suspense fallback={<Loading label={t('overview.drawing')} />}><UsageChart days={data.days} /></Suspense>}
        </QueryState>
      </Section>
    </Page>
  );
}

/** The environment variable the curl command reads the key from. */
const KEY_VARIABLE = 'HERALD_API_KEY';

/** The empty state: a send this account can make right now, from its own verified domain. */
function FirstSend() {
  const { t } = useTranslation('live');
  const domains = useQuery(domainsQuery);
  const verified = domains.data?.domains.find((d) => d.verified)?.domain;
  const from = verified ?? 'example.com';
  const command = [
    `curl -s ${window.location.origin}/v1/email \\`,
    '  -H "Authorization: Bearer $HERALD_API_KEY" -H "Content-Type: application/json" \\',
    `  -d '{"to":[{"email":"you@example.org"}],"from":{"email":"hello@${from}","name":"Hello"},"replyTo":{"email":"hello@${from}","name":"Hello"},"subject":"First message","body":"<p>It works.</p>"}'`,
  ].join('\n');
  return (
    <Empty title={t('overview.noMessages')}>
      <p>{t('overview.firstSendKey')} <Link to="/api-keys">{t('overview.apiKeys')}</Link>{t('overview.firstSendPut')} <code>{KEY_VARIABLE}</code>{t('overview.firstSendRun')}</p>
      <div className="code-block">
        <pre tabIndex={0} aria-label={t('overview.curlLabel')}><code>{command}</code></pre>
        <CopyButton text={command} label={t('overview.copyCurl')} />
      </div>
      {verified === undefined && domains.isSuccess
        ? <p className="hint">{t('overview.noDomain')} <Link to="/domains">{t('overview.addDomain')}</Link>{t('overview.noDomainEnd')}</p>
        : null}
    </Empty>
  );
}
