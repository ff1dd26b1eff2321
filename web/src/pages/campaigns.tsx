import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('reports');
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
    <Page title={t('campaigns.title')} description={t('campaigns.description')}
      actions={canWrite ? <Link className="button" to="/campaigns/new">{t('campaigns.new')}</Link> : undefined}>
      {canWrite ? null : <p className="notice">{t('campaigns.readOnly')}</p>}
      <Section title={t('campaigns.all')} id="all-campaigns">
        <div className="filters narrow">
          <SelectField label={t('campaigns.status')} value={status ?? ''} onChange={(e) => setParams(e.target.value === '' ? {} : { status: e.target.value })}>
            <option value="">{t('campaigns.anyStatus')}</option>
            {CAMPAIGN_STATUSES.map((s) => <option key={s} value={s}>{t(`common:status.${s}`)}</option>)}
          </SelectField>
        </div>
        <QueryState query={campaigns} isEmpty={(d) => d.campaigns.length === 0}
          empty={<Empty title={status === undefined ? t('campaigns.none') : t('campaigns.noneWithStatus', { status: t(`common:status.${status}`) })}>
            {status === undefined && canWrite ? <p><Trans t={t} i18nKey="campaigns.firstSteps" components={{ lists: <Link to="/lists" />, write: <Link to="/campaigns/new" /> }} /></p> : null}
          </Empty>}>
          {(data) => (
            <DataTable rows={data.campaigns} rowKey={(c) => c.campaign_id} columns={[
              { header: t('campaigns.columns.campaign'), cell: (c) => <><Link to={`/campaigns/${c.campaign_id}`}>{c.name}</Link><div className="muted small">{c.subject}</div></> },
              { header: t('campaigns.columns.status'), cell: (c) => <StatusBadge status={c.status} /> },
              { header: t('campaigns.columns.recipients'), num: true, cell: (c) => (c.status === 'draft' ? <span className="muted">—</span> : formatCount(c.recipients)) },
              { header: t('campaigns.columns.sendAt'), cell: (c) => <Time iso={c.send_at} fallback={t('campaigns.onSend')} /> },
              { header: t('campaigns.columns.started'), cell: (c) => <Time iso={c.started_at} /> },
              { header: t('campaigns.columns.finished'), cell: (c) => <Time iso={c.finished_at} /> },
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
  const { t } = useTranslation('reports');
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
    <Section title={t('tagged.title')} id="tagged-sends">
      <form className="inline-form" onSubmit={submit}>
        <TextField label={t('tagged.field')} value={name} onChange={(e) => setName(e.target.value)} placeholder={t('tagged.placeholder')} />
        <button type="submit" className="button secondary" disabled={name.trim() === ''}>{t('tagged.count')}</button>
      </form>
      {asked === undefined ? <p className="hint"><Trans t={t} i18nKey="tagged.hint" components={{ code: <code /> }} /></p> : (
        <QueryState query={stats} isEmpty={(s) => s.recipients === 0} empty={<Empty title={t('tagged.none', { name: asked })} />}>
          {(s) => <StatTiles stats={s} />}
        </QueryState>
      )}
    </Section>
  );
}
