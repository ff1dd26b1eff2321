import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { CAMPAIGN_STATUSES, campaignsQuery, LIVE_STATUSES, tagStatsQuery } from '../api/campaigns.ts';
import type { CampaignStatus } from '../api/types.ts';
import { allows, useSession } from '../api/session.ts';
import { DataTable } from '../components/data-table.tsx';
import { SelectField, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';
import { StatTiles } from './campaign-report.tsx';
import './campaigns.css';

const statusIn = (value: string | null): CampaignStatus | undefined => CAMPAIGN_STATUSES.find((s) => s === value);

/** The account's campaigns, newest first, with their status; the filter lives in the address. */
export default function CampaignsPage() {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const [params, setParams] = useSearchParams();
  const status = statusIn(params.get('status'));
  const campaigns = useQuery({
    ...campaignsQuery(status),
    // Running and scheduled campaigns change by themselves: their rows follow.
    refetchInterval: (query) => (query.state.data?.campaigns.some((c) => LIVE_STATUSES.includes(c.status)) === true ? 5000 : false),
  });
  return (
    <Page title="Campaigns" description="Email to the confirmed subscribers of your lists: one message per contact, paced, counted per campaign."
      actions={canWrite ? <Link className="button" to="/campaigns/new">New campaign</Link> : undefined}>
      {canWrite ? null : <p className="notice">Your role can see campaigns and their reports but not create, change or send them.</p>}
      <Section title="All campaigns">
        <div className="filters narrow">
          <SelectField label="Status" value={status ?? ''} onChange={(e) => setParams(e.target.value === '' ? {} : { status: e.target.value })}>
            <option value="">any</option>
            {CAMPAIGN_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </SelectField>
        </div>
        <QueryState query={campaigns} isEmpty={(d) => d.campaigns.length === 0}
          empty={<Empty title={status === undefined ? 'No campaigns yet' : `No ${status} campaign`}>
            {status === undefined && canWrite ? <p>Make a <Link to="/lists">list</Link> with contacts, then <Link to="/campaigns/new">write the first campaign</Link>.</p> : null}
          </Empty>}>
          {(data) => (
            <DataTable rows={data.campaigns} rowKey={(c) => c.campaign_id} columns={[
              { header: 'Campaign', cell: (c) => <><Link to={`/campaigns/${c.campaign_id}`}>{c.name}</Link><div className="muted small">{c.subject}</div></> },
              { header: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
              { header: 'Recipients', num: true, cell: (c) => (c.status === 'draft' ? <span className="muted">—</span> : formatCount(c.recipients)) },
              { header: 'Send at', cell: (c) => <Time iso={c.send_at} fallback="on send" /> },
              { header: 'Started', cell: (c) => <Time iso={c.started_at} /> },
              { header: 'Finished', cell: (c) => <Time iso={c.finished_at} /> },
            ]} />
          )}
        </QueryState>
      </Section>
      <TaggedSends />
    </Page>
  );
}

/** The counts of the POST /v1/email sends that carried `campaign: <name>` (GET /v1/campaigns/tags/:name/stats). */
function TaggedSends() {
  const [name, setName] = useState('');
  const [asked, setAsked] = useState<string | undefined>();
  const stats = useQuery({
    ...tagStatsQuery(asked),
    enabled: asked !== undefined,
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (name.trim() !== '') setAsked(name.trim());
  };
  return (
    <Section title="Sends tagged through the API">
      <form className="inline-form" onSubmit={submit}>
        <TextField label="The campaign field of POST /v1/email" value={name} onChange={(e) => setName(e.target.value)} placeholder="welcome-series" />
        <button type="submit" className="button secondary" disabled={name.trim() === ''}>Count</button>
      </form>
      {asked === undefined ? <p className="hint">Transactional sends may carry a <code>campaign</code> name; herald counts them the same way as a campaign.</p> : (
        <QueryState query={stats} isEmpty={(s) => s.recipients === 0} empty={<Empty title={`No send carried “${asked}”`} />}>
          {(s) => <StatTiles stats={s} />}
        </QueryState>
      )}
    </Section>
  );
}
