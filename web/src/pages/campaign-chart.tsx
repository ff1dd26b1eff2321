import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Timeline } from '../api/campaigns.ts';
import { localDate, localTime } from '../lib/format.ts';

// Mid-tone colours that read on the light and the dark background alike (as the overview's).
const SERIES = [
  { key: 'opened', label: 'Opens', color: '#4f7cff' },
  { key: 'clicked', label: 'Clicks', color: '#d9822b' },
] as const;

/** Human opens and clicks per bucket, as bars side by side (herald leaves empty buckets out, so no line joins them), with the same numbers in a table for those who cannot see the chart. */
export default function CampaignTimelineChart(props: { timeline: Timeline }) {
  const label = (at: string): string => (props.timeline.interval === 'day' ? localDate(at) : localTime(at));
  const rows = props.timeline.points.map((p) => ({ ...p, label: label(p.at) }));
  const title = `Human opens and clicks per ${props.timeline.interval}`;
  return (
    <figure className="chart">
      <div className="chart-area" role="img" aria-label={`${title}: a bar chart; the same numbers are in the table below it`}>
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: -16 }} accessibilityLayer={false} maxBarSize={36}>
            <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
            <XAxis dataKey="label" tick={{ fill: 'currentColor', fontSize: 12 }} tickLine={false} minTickGap={32} />
            <YAxis allowDecimals={false} tick={{ fill: 'currentColor', fontSize: 12 }} tickLine={false} axisLine={false} />
            <Tooltip wrapperClassName="chart-tooltip" cursor={{ fillOpacity: 0.08 }} />
            <Legend />
            {SERIES.map((s) => <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} isAnimationActive={false} />)}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details className="chart-table">
        <summary>Show the numbers as a table</summary>
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="visually-hidden">{title}</caption>
            <thead><tr><th scope="col">{props.timeline.interval === 'day' ? 'Day' : 'Hour'}</th>{SERIES.map((s) => <th scope="col" key={s.key} className="num">{s.label}</th>)}</tr></thead>
            <tbody>{rows.map((r) => <tr key={r.at}><th scope="row">{r.label}</th><td className="num">{r.opened}</td><td className="num">{r.clicked}</td></tr>)}</tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
