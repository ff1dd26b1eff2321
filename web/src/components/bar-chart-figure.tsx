import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { DataTable } from './data-table.tsx';

// A bar chart as the pages show one: described for screen readers, with the same numbers
// in a table below it for those who cannot see the chart (the overview, a campaign's report).

export interface ChartSeries {
  readonly key: string;
  readonly label: string;
  readonly color: string;
}

/** One bar group: `id` keys the row, `label` is shown on the axis and heads the table row. */
export type ChartRow = { readonly id: string; readonly label: string } & Readonly<Record<string, number | string>>;

export default function BarChartFigure(props: {
  readonly rows: readonly ChartRow[];
  readonly series: readonly ChartSeries[];
  readonly title: string;
  /** The table's first column: Day, Hour. */
  readonly rowHeader: string;
  /** Series stacked in one bar (parts of a whole) rather than side by side. */
  readonly stacked?: boolean;
}) {
  const { t } = useTranslation('common');
  return (
    <figure className="chart">
      <div className="chart-area" role="img" aria-label={t('chart.described', { title: props.title })}>
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={[...props.rows]} margin={{ top: 8, right: 12, bottom: 0, left: -16 }} accessibilityLayer={false} maxBarSize={36}>
            <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
            <XAxis dataKey="label" tick={{ fill: 'currentColor', fontSize: 12 }} tickLine={false} minTickGap={24} />
            <YAxis allowDecimals={false} tick={{ fill: 'currentColor', fontSize: 12 }} tickLine={false} axisLine={false} />
            <Tooltip wrapperClassName="chart-tooltip" cursor={{ fillOpacity: 0.08 }} />
            <Legend />
            {props.series.map((s) => (
              <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} isAnimationActive={false} {...(props.stacked === true ? { stackId: 'one' } : {})} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details className="chart-table">
        <summary>{t('chart.showTable')}</summary>
        <DataTable caption={props.title} rows={props.rows} rowKey={(row) => row.id} columns={[
          { header: props.rowHeader, cell: (row) => row.label },
          ...props.series.map((s) => ({ header: s.label, num: true, cell: (row: ChartRow) => row[s.key] })),
        ]} />
      </details>
    </figure>
  );
}
