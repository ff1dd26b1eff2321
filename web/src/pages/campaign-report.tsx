import * as Ariakit from '@ariakit/react';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useId } from 'react';
import { LIVE_STATUSES, statsQuery, timelineQuery } from '../api/campaigns.ts';
import type { CampaignView, Stats } from '../api/types.ts';
import { DataTable } from '../components/data-table.tsx';
import { Section } from '../components/page.tsx';
import { Empty, Loading, QueryState } from '../components/query-state.tsx';
import { formatCount, formatRate } from '../lib/format.ts';

// The chart library loads only on a report with something to draw.
const TimelineChart = lazy(() => import('./campaign-chart.tsx'));

const rate = (part: number, whole: number): string => (whole === 0 ? '—' : formatRate(part / whole));

function Stat(props: { label: string; value: number; note?: string }) {
  return <div className="stat"><dt>{props.label}</dt><dd>{formatCount(props.value)}{props.note === undefined ? null : <span className="stat-note">{props.note}</span>}</dd></div>;
}

function Progress(props: { label: string; value: number; max: number }) {
  const id = useId();
  return (
    <div className="progress-line">
      <span id={id}>{props.label}: {formatCount(props.value)} of {formatCount(props.max)}</span>
      <progress aria-labelledby={id} value={Math.min(props.value, props.max)} max={Math.max(props.max, 1)} />
    </div>
  );
}

/** The counts of a campaign, or of the API sends tagged with a `campaign` name: equal to their webhook events. */
export function StatTiles(props: { stats: Stats }) {
  const s = props.stats;
  // Rates against the messages that arrived (delivered, or sent where the relay reports no delivery).
  const reached = s.delivered > 0 ? s.delivered : s.sent;
  return (
    <dl className="stats">
      <Stat label="Recipients" value={s.recipients} note="messages made" />
      <Stat label="Sent" value={s.sent} />
      <Stat label="Delivered" value={s.delivered} />
      <Stat label="Opened" value={s.opened.unique} note={`${rate(s.opened.unique, reached)} · ${formatCount(s.opened.machine)} machine opens not counted`} />
      <Stat label="Clicked" value={s.clicked.unique} note={`${rate(s.clicked.unique, reached)} · ${formatCount(s.clicked.human)} click${s.clicked.human === 1 ? '' : 's'}`} />
      <Stat label="Bounced" value={s.bounced.hard + s.bounced.soft} note={`${formatCount(s.bounced.hard)} hard · ${formatCount(s.bounced.soft)} soft`} />
      <Stat label="Failed" value={s.failed} />
      <Stat label="Dropped" value={s.dropped} note="suppressed addresses" />
      <Stat label="Unsubscribed" value={s.unsubscribed} />
      <Stat label="Complaints" value={s.complained} />
    </dl>
  );
}

/** A sent campaign's counts (equal to its webhook events), its progress, opens and clicks over time, and its links. */
export function CampaignReport(props: { campaign: CampaignView }) {
  const c = props.campaign;
  const live = LIVE_STATUSES.includes(c.status);
  const stats = useQuery({
    ...statsQuery(c.campaign_id),
    refetchInterval: live ? 3000 : false,
    staleTime: 0,
  });
  return (
    <>
      <Section title="Results">
        <QueryState query={stats}>
          {(s) => {
            return (
              <>
                {c.recipients > 0 ? <Progress label="Messages made" value={s.recipients} max={c.recipients} /> : null}
                {s.recipients > 0 ? <Progress label="With an outcome (sent, bounced, failed or dropped)" value={s.sent + s.bounced.hard + s.bounced.soft + s.failed + s.dropped} max={s.recipients} /> : null}
                <StatTiles stats={s} />
                {live ? <p className="hint" role="status">herald is still working on this campaign; the numbers follow every few seconds.</p> : null}
              </>
            );
          }}
        </QueryState>
      </Section>
      <Section title="Opens and clicks over time">
        <Ariakit.TabProvider defaultSelectedId="timeline-hour">
          <Ariakit.TabList className="tabs" aria-label="Bucket size">
            <Ariakit.Tab className="tab" id="timeline-hour">By hour</Ariakit.Tab>
            <Ariakit.Tab className="tab" id="timeline-day">By day</Ariakit.Tab>
          </Ariakit.TabList>
          <Ariakit.TabPanel tabId="timeline-hour" className="tab-panel"><TimelinePanel campaignId={c.campaign_id} interval="hour" live={live} /></Ariakit.TabPanel>
          <Ariakit.TabPanel tabId="timeline-day" className="tab-panel"><TimelinePanel campaignId={c.campaign_id} interval="day" live={live} /></Ariakit.TabPanel>
        </Ariakit.TabProvider>
      </Section>
      <Section title="Links">
        <QueryState query={stats} isEmpty={(s) => s.clicked.by_url.length === 0} empty={<Empty title="No clicks yet" />}>
          {(s) => (
            <DataTable rows={s.clicked.by_url} rowKey={(u) => u.url} columns={[
              { header: 'Link', cellClassName: 'break', cell: (u) => u.url },
              { header: 'Clicks', num: true, cell: (u) => formatCount(u.clicks) },
            ]} />
          )}
        </QueryState>
        <p className="hint">Every click event, human and machine, by link (the 100 most clicked).</p>
      </Section>
    </>
  );
}

function TimelinePanel(props: { campaignId: string; interval: 'hour' | 'day'; live: boolean }) {
  const timeline = useQuery({
    ...timelineQuery(props.campaignId, props.interval),
    refetchInterval: props.live ? 10_000 : false,
  });
  return (
    <QueryState query={timeline} isEmpty={(t) => t.points.length === 0}
      empty={<Empty title="No opens or clicks yet">Human opens and clicks appear here, per {props.interval}, as they come in.</Empty>}>
      {(t) => <Suspense fallback={<Loading label="Drawing the chart…" />}><TimelineChart timeline={t} /></Suspense>}
    </QueryState>
  );
}
