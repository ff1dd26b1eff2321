import { useTranslation } from 'react-i18next';
import type { Timeline } from '../api/types.ts';
import BarChartFigure from '../components/bar-chart-figure.tsx';
import { localDate, localTime } from '../lib/format.ts';

// Mid-tone colours that read on the light and the dark background alike (as the overview's).
const COLORS = { opened: '#4f7cff', clicked: '#d9822b' } as const;

/** Human opens and clicks per bucket, as bars side by side (herald leaves empty buckets out, so no line joins them), with the same numbers in a table for those who cannot see the chart. */
export default function CampaignTimelineChart(props: { timeline: Timeline }) {
  const { t } = useTranslation('reports');
  const series = [
    { key: 'opened', label: t('chart.opens'), color: COLORS.opened },
    { key: 'clicked', label: t('chart.clicks'), color: COLORS.clicked },
  ];
  const label = (at: string): string => (props.timeline.interval === 'day' ? localDate(at) : localTime(at));
  const rows = props.timeline.points.map((p) => ({ id: p.at, label: label(p.at), opened: p.opened, clicked: p.clicked }));
  return (
    <BarChartFigure rows={rows} series={series} title={props.timeline.interval === 'day' ? t('chart.titleDay') : t('chart.titleHour')}
      rowHeader={props.timeline.interval === 'day' ? t('chart.day') : t('chart.hour')} />
  );
}
