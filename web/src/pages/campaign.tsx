import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { campaignQuery, LIVE_STATUSES } from '../api/campaigns.ts';
import { listsQuery } from '../api/lists.ts';
import type { CampaignView } from '../api/types.ts';
import { allows, useSession } from '../api/session.ts';
import { Page, Section } from '../components/page.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';
import { CampaignActions, QuotePanel } from './campaign-actions.tsx';
import { TemplateName } from './campaign-template-name.tsx';
import { RecordPage } from './campaign-missing.tsx';
import { CampaignRecipients } from './campaign-recipients.tsx';
import { CampaignReport } from './campaign-report.tsx';
import './campaigns.css';

// RecordPage (campaign-missing.tsx) builds its "not found" sentences around this English
// noun; it goes into the catalogues with that page.
const RECORD_NOUN = 'campaign';
const CAMPAIGNS_PATH = '/campaigns';

/** A campaign: what it is, what may be done with it now, and once sent its report over time. */
export default function CampaignPage() {
  const { t } = useTranslation('campaign');
  const campaignId = useParams().campaignId ?? '';
  const campaign = useQuery({
    ...campaignQuery(campaignId),
    // While herald works on it (scheduled, running, paused), its status and counts follow.
    refetchInterval: (query) => (query.state.data !== undefined && LIVE_STATUSES.includes(query.state.data.status) ? 3000 : false),
  });
  return (
    <RecordPage query={campaign} noun={RECORD_NOUN} id={campaignId} back={CAMPAIGNS_PATH} backLabel={t('allCampaigns')}>
      {(found) => <CampaignDetails campaign={found} />}
    </RecordPage>
  );
}

function CampaignDetails(props: { campaign: CampaignView }) {
  const { t } = useTranslation('campaign');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const c = props.campaign;
  const lists = useQuery(listsQuery);
  const listName = (id: string) => lists.data?.lists.find((l) => l.list_id === id)?.name ?? id;
  const listLinks = (ids: readonly string[]) => (ids.length === 0 ? <span className="muted">{t('facts.none')}</span>
    : ids.map((id, i) => <span key={id}>{i > 0 ? ', ' : ''}<Link to={`/lists/${id}`}>{listName(id)}</Link></span>));
  const perMinute = (n: number): string => t('facts.perMinute', { count: n, formatted: formatCount(n) });
  const sent = c.status !== 'draft';
  return (
    <Page title={c.name} description={<><Link to="/campaigns">{t('back')}</Link> · <StatusBadge status={c.status} /></>}
      actions={<CampaignActions campaign={c} canWrite={canWrite} userEmail={session.data?.user.email ?? ''} />}>
      {canWrite ? null : <p className="notice">{t('readOnly')}</p>}
      <Section title={t('facts.title')}>
        <dl className="facts">
          <div><dt>{t('facts.status')}</dt><dd><StatusBadge status={c.status} /></dd></div>
          <div><dt>{t('facts.subject')}</dt><dd>{c.subject}</dd></div>
          <div><dt>{t('facts.from')}</dt><dd>{`${c.from.name} <${c.from.email}>`}</dd></div>
          <div><dt>{t('facts.replyTo')}</dt><dd>{`${c.replyTo.name} <${c.replyTo.email}>`}</dd></div>
          <div><dt>{t('facts.content')}</dt><dd>{c.template_id === null ? t('facts.ownBody') : <>{t('facts.template')} <TemplateName templateId={c.template_id} /></>}</dd></div>
          <div><dt>{t('facts.lists')}</dt><dd>{listLinks(c.lists)}</dd></div>
          <div><dt>{t('facts.leavingOut')}</dt><dd>{listLinks(c.exclude_lists)}</dd></div>
          <div><dt>{t('facts.sendAt')}</dt><dd><Time iso={c.send_at} fallback={t('facts.whenSent')} /></dd></div>
          <div><dt>{t('facts.pace')}</dt><dd>{c.messages_per_minute === null ? t('facts.asFast') : perMinute(c.messages_per_minute)}</dd></div>
          <div><dt>{t('facts.pacePerDomain')}</dt><dd>{c.messages_per_minute_per_domain === null ? t('facts.noLimit') : t('facts.toAnyDomain', { pace: perMinute(c.messages_per_minute_per_domain) })}</dd></div>
          {sent ? <div><dt>{t('facts.recipients')}</dt><dd>{t('facts.debited', { count: c.recipients, formatted: formatCount(c.recipients) })}</dd></div> : null}
          <div><dt>{t('facts.created')}</dt><dd><Time iso={c.created_at} /></dd></div>
          {c.started_at === null ? null : <div><dt>{t('facts.started')}</dt><dd><Time iso={c.started_at} /></dd></div>}
          {c.finished_at === null ? null : <div><dt>{c.status === 'cancelled' ? t('facts.cancelled') : t('facts.finished')}</dt><dd><Time iso={c.finished_at} /></dd></div>}
          {c.follows === null ? null : (
            <div><dt>{t('facts.followsUp')}</dt><dd><Link to={`/campaigns/${c.follows.campaign_id}`}>{t('facts.theCampaign')}</Link>{c.follows.to === 'not_opened' ? t('facts.notOpened') : t('facts.notClicked')}</dd></div>
          )}
          {c.body === null ? null : (
            <div className="full"><dt>{t('facts.body')}</dt><dd><details><summary>{t('facts.showSource')}</summary><pre className="attributes" tabIndex={0}>{c.body}</pre></details></dd></div>
          )}
          {c.filter === null ? null : <div className="full"><dt>{t('facts.filter')}</dt><dd><pre className="attributes" tabIndex={0}>{JSON.stringify(c.filter, null, 2)}</pre></dd></div>}
        </dl>
      </Section>
      {sent ? (
        <>
          <CampaignReport campaign={c} />
          <CampaignRecipients campaignId={c.campaign_id} live={LIVE_STATUSES.includes(c.status)} />
        </>
      ) : <QuotePanel campaign={c} />}
    </Page>
  );
}
