import * as Ariakit from '@ariakit/react';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { LIVE_STATUSES, statsQuery, timelineQuery } from '../api/campaigns.ts';
import type { CampaignView, Stats } from '../api/types.ts';
import { DataTable } from '../components/data-table.tsx';
import { Section } from '../components/page.tsx';
import { Empty, Loading, QueryState } from '../components/query-state.tsx';
import { formatCount, formatRate } from '../lib/format.ts';

// The chart library loads only on a report with something to draw.
const TimelineChart = lazy(() => import('./campaign-chart.tsx'));

// The timeline's two tabs: their ids, and the bucket each shows.
const HOUR: { tab: string; interval: 'hour' } = { tab: 'timeline-hour', interval: 'hour' };
const DAY: { tab: string; interval: 'day' } = { tab: 'timeline-day', interval: 'day' };

const rate = (part: number, whole: number): string => (whole === 0 ? '—' : formatRate(part / whole));

function Stat(props: { label: string; value: number; note?: string }) {
  return <div className="stat"><dt>{props.label}</dt><dd>{formatCount(props.value)}{props.note === undefined ? null : <span className="stat-note">{props.note}</span>}</dd></div>;
}

function Progress(props: { label: string; value: number; max: number }) {
  const { t } = useTranslation('reports');
  const id = useId();
  return (
    <div className="progress-line">
      <span id={id}>{t('progress', { label: props.label, value: formatCount(props.value), max: formatCount(props.max) })}</span>
      <progress aria-labelledby={id} value={Math.min(props.value, props.max)} max={Math.max(props.max, 1)} />
    </div>
  );
}

/** The counts of a campaign, or of the API sends tagged with a `campaign` name: equal to their webhook events. */
export function StatTiles(props: { stats: Stats }) {
  const { t } = useTranslation('reports');
  const s = props.stats;
  // Rates against the messages that arrived (delivered, or sent where the relay reports no delivery).
  const reached = s.delivered > 0 ? s.delivered : s.sent;
  return (
    <dl className="stats">
      <Stat label={t('stats.recipients')} value={s.recipients} note={t('stats.recipientsNote')} />
      <Stat label={t('stats.sent')} value={s.sent} />
      <Stat label={t('stats.delivered')} value={s.delivered} />
      <Stat label={t('stats.opened')} value={s.opened.unique} note={t('stats.openedNote', { rate: rate(s.opened.unique, reached), machine: formatCount(s.opened.machine) })} />
      <Stat label={t('stats.clicked')} value={s.clicked.unique} note={t('stats.clickedNote', { rate: rate(s.clicked.unique, reached), count: s.clicked.human, clicks: formatCount(s.clicked.human) })} />
      <Stat label={t('stats.bounced')} value={s.bounced.hard + s.bounced.soft} note={t('stats.bouncedNote', { hard: formatCount(s.bounced.hard), soft: formatCount(s.bounced.soft) })} />
      <Stat label={t('stats.failed')} value={s.failed} />
      <Stat label={t('stats.dropped')} value={s.dropped} note={t('stats.droppedNote')} />
      <Stat label={t('stats.unsubscribed')} value={s.unsubscribed} />
      <Stat label={t('stats.complaints')} value={s.complained} />
    </dl>
  );
}

/** A sent campaign's counts (equal to its webhook events), its progress, opens and clicks over time, and its links. */
export function CampaignReport(props: { campaign: CampaignView }) {
  const { t } = useTranslation('reports');
  const c = props.campaign;
  const live = LIVE_STATUSES.includes(c.status);
  const stats = useQuery({
    ...statsQuery(c.campaign_id),
    refetchInterval: live ? 3000 : false,
    staleTime: 0,
  });
  return (
    <>
      <Section title={t('results.title')} id="results">
        <QueryState query={stats}>
          {(s) => {
            return (
              <>
                {c.recipients > 0 ? <Progress label={t('results.made')} value={s.recipients} max={c.recipients} /> : null}
                {s.recipients > 0 ? <Progress label={t('results.outcome')} value={s.sent + s.bounced.hard + s.bounced.soft + s.failed + s.dropped} max={s.recipients} /> : null}
                <StatTiles stats={s} />
                {live ? <p className="hint" role="status">{t('results.live')}</p> : null}
              </>
            );
          }}
        </QueryState>
      </Section>
      <Section title={t('timeline.title')} id="opens-and-clicks">
        <Ariakit.TabProvider defaultSelectedId={HOUR.tab}>
          <Ariakit.TabList className="tabs" aria-label={t('timeline.bucket')}>
            <Ariakit.Tab className="tab" id={HOUR.tab}>{t('timeline.byHour')}</Ariakit.Tab>
            <Ariakit.Tab className="tab" id={DAY.tab}>{t('timeline.byDay')}</Ariakit.Tab>
          </Ariakit.TabList>
          <Ariakit.TabPanel tabId={HOUR.tab} className="tab-panel"><TimelinePanel campaignId={c.campaign_id} interval={HOUR.interval} live={live} /></Ariakit.TabPanel>
          <Ariakit.TabPanel tabId={DAY.tab} className="tab-panel"><TimelinePanel campaignId={c.campaign_id} interval={DAY.interval} live={live} /></Ariakit.TabPanel>
        </Ariakit.TabProvider>
      </Section>
      <Section title={t('links.title')} id="links">
        <QueryState query={stats} isEmpty={(s) => s.clicked.by_url.length === 0} empty={<Empty title={t('links.none')} />}>
          {(s) => (
            <DataTable rows={s.clicked.by_url} rowKey={(u) => u.url} columns={[
              { header: t('links.link'), cellClassName: 'break', cell: (u) => u.url },
              { header: t('links.clicks'), num: true, cell: (u) => formatCount(u.clicks) },
            ]} />
          )}
        </QueryState>
        <p className="hint">{t('links.hint')}</p>
      </Section>
    </>
  );
}

function TimelinePanel(props: { campaignId: string; interval: 'hour' | 'day'; live: boolean }) {
  const { t } = useTranslation('reports');
  const timeline = useQuery({
    ...timelineQuery(props.campaignId, props.interval),
    refetchInterval: props.live ? 10_000 : false,
  });
  return (
    <QueryState query={timeline} isEmpty={(data) => data.points.length === 0}
      empty={<Empty title={t('timeline.none')}>{props.interval === 'day' ? t('timeline.noneHintDay') : t('timeline.noneHintHour')}</Empty>}>
      {(data) => <Suspense fallback={<Loading label={t('timeline.drawing')} />}><TimelineChart timeline={data} /></Suspense>}
    </QueryState>
  );
}
