import type { Timeline } from '../api/types.ts';
import BarChartFigure from '../components/bar-chart-figure.tsx';
import { localDate, localTime } from '../lib/format.ts';

// Mid-tone colours that read on the light and the dark background alike (as the overview's).
const SERIES = [
  { key: 'opened', label: 'Opens', color: '#4f7cff' },
  { key: 'clicked', label: 'Clicks', color: '#d9822b' },
] as const;

/** Human opens and clicks per bucket, as bars side by side (herald leaves empty buckets out, so no line joins them), with the same numbers in a table for those who cannot see the chart. */
export default function CampaignTimelineChart(props: { timeline: Timeline }) {
  const label = (at: string): string => (props.timeline.interval === 'day' ? localDate(at) : localTime(at));
  const rows = props.timeline.points.map((p) => ({ id: p.at, label: label(p.at), opened: p.opened, clicked: p.clicked }));
  return (
    <BarChartFigure rows={rows} series={SERIES} title={`Human opens and clicks per ${props.timeline.interval}`}
      rowHeader={props.timeline.interval === 'day' ? 'Day' : 'Hour'} />
  );
}
