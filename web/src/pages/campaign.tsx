import { useQuery } from '@tanstack/react-query';
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
import { RecordPage } from './campaign-missing.tsx';
import { CampaignRecipients } from './campaign-recipients.tsx';
import { CampaignReport } from './campaign-report.tsx';
import './campaigns.css';

/** A campaign: what it is, what may be done with it now, and once sent its report over time. */
export default function CampaignPage() {
  const campaignId = useParams().campaignId ?? '';
  const campaign = useQuery({
    ...campaignQuery(campaignId),
    // While herald works on it (scheduled, running, paused), its status and counts follow.
    refetchInterval: (query) => (query.state.data !== undefined && LIVE_STATUSES.includes(query.state.data.status) ? 3000 : false),
  });
  return (
    <RecordPage query={campaign} noun="campaign" id={campaignId} back="/campaigns" backLabel="All campaigns">
      {(found) => <CampaignDetails campaign={found} />}
    </RecordPage>
  );
}

const perMinute = (n: number): string => `${formatCount(n)} message${n === 1 ? '' : 's'} a minute`;

function CampaignDetails(props: { campaign: CampaignView }) {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const c = props.campaign;
  const lists = useQuery(listsQuery);
  const listName = (id: string) => lists.data?.lists.find((l) => l.list_id === id)?.name ?? id;
  const listLinks = (ids: readonly string[]) => (ids.length === 0 ? <span className="muted">none</span>
    : ids.map((id, i) => <span key={id}>{i > 0 ? ', ' : ''}<Link to={`/lists/${id}`}>{listName(id)}</Link></span>));
  const sent = c.status !== 'draft';
  return (
    <Page title={c.name} description={<><Link to="/campaigns">← All campaigns</Link> · <StatusBadge status={c.status} /></>}
      actions={<CampaignActions campaign={c} canWrite={canWrite} userEmail={session.data?.user.email ?? ''} />}>
      {canWrite ? null : <p className="notice">Your role can see this campaign and its report but not change or send it.</p>}
      <Section title="Campaign">
        <dl className="facts">
          <div><dt>Status</dt><dd><StatusBadge status={c.status} /></dd></div>
          <div><dt>Subject</dt><dd>{c.subject}</dd></div>
          <div><dt>From</dt><dd>{c.from.name} &lt;{c.from.email}&gt;</dd></div>
          <div><dt>Reply-to</dt><dd>{c.replyTo.name} &lt;{c.replyTo.email}&gt;</dd></div>
          <div><dt>Content</dt><dd>{c.template_id === null ? 'its own body' : <Link to={`/templates/${c.template_id}`}>a template</Link>}</dd></div>
          <div><dt>Lists</dt><dd>{listLinks(c.lists)}</dd></div>
          <div><dt>Leaving out</dt><dd>{listLinks(c.exclude_lists)}</dd></div>
          <div><dt>Send at</dt><dd><Time iso={c.send_at} fallback="when sent" /></dd></div>
          <div><dt>Pace</dt><dd>{c.messages_per_minute === null ? 'as fast as herald sends' : perMinute(c.messages_per_minute)}</dd></div>
          <div><dt>Pace per domain</dt><dd>{c.messages_per_minute_per_domain === null ? 'no limit' : `${perMinute(c.messages_per_minute_per_domain)} to any one recipient domain`}</dd></div>
          {sent ? <div><dt>Recipients</dt><dd>{formatCount(c.recipients)} (debited at the send)</dd></div> : null}
          <div><dt>Created</dt><dd><Time iso={c.created_at} /></dd></div>
          {c.started_at === null ? null : <div><dt>Started</dt><dd><Time iso={c.started_at} /></dd></div>}
          {c.finished_at === null ? null : <div><dt>{c.status === 'cancelled' ? 'Cancelled' : 'Finished'}</dt><dd><Time iso={c.finished_at} /></dd></div>}
          {c.follows === null ? null : (
            <div><dt>Follows up</dt><dd><Link to={`/campaigns/${c.follows.campaign_id}`}>the campaign</Link>, to who {c.follows.to === 'not_opened' ? 'did not open it' : 'did not click in it'}</dd></div>
          )}
          {c.body === null ? null : (
            <div className="full"><dt>Body</dt><dd><details><summary>Show the source</summary><pre className="attributes" tabIndex={0}>{c.body}</pre></details></dd></div>
          )}
          {c.filter === null ? null : <div className="full"><dt>Filter</dt><dd><pre className="attributes" tabIndex={0}>{JSON.stringify(c.filter, null, 2)}</pre></dd></div>}
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
