import * as Ariakit from '@ariakit/react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Counts, UsageDay } from '../api/types.ts';
import { localDate } from '../lib/format.ts';

// Mid-tone colours that read on the light and the dark background alike.
const CHANNEL_SERIES = [
  { key: 'email', label: 'Email', color: '#4f7cff' },
  { key: 'sms', label: 'SMS', color: '#15a05a' },
  { key: 'whatsapp', label: 'WhatsApp', color: '#d9822b' },
] as const;
const OUTCOME_SERIES = [
  { key: 'delivered', label: 'Delivered', color: '#15a05a' },
  { key: 'bounced', label: 'Bounced', color: '#e0484f' },
  { key: 'failed', label: 'Failed', color: '#9b6bf2' },
] as const;

const sum = (day: UsageDay, field: keyof Counts): number => day.email[field] + day.sms[field] + day.whatsapp[field];

type Row = { label: string; date: string } & Record<string, number | string>;

function rowsOf(days: readonly UsageDay[], view: 'channel' | 'outcome'): Row[] {
  return days.map((day): Row => {
    const label = localDate(`${day.date}T12:00:00Z`);
    return view === 'channel'
      ? { date: day.date, label, email: day.email.accepted, sms: day.sms.accepted, whatsapp: day.whatsapp.accepted }
      : { date: day.date, label, delivered: sum(day, 'delivered'), bounced: sum(day, 'bounced'), failed: sum(day, 'failed') };
  });
}

function Chart(props: { rows: Row[]; series: readonly { key: string; label: string; color: string }[]; title: string }) {
  return (
    <figure className="chart">
      <div className="chart-area" role="img" aria-label={`${props.title}: a bar chart; the same numbers are in the table below it`}>
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={props.rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
            <XAxis dataKey="label" tick={{ fill: 'currentColor', fontSize: 12 }} tickLine={false} minTickGap={24} />
            <YAxis allowDecimals={false} tick={{ fill: 'currentColor', fontSize: 12 }} tickLine={false} axisLine={false} />
            <Tooltip wrapperClassName="chart-tooltip" cursor={{ fillOpacity: 0.08 }} />
            <Legend />
            {props.series.map((s) => <Bar key={s.key} dataKey={s.key} name={s.label} stackId="day" fill={s.color} isAnimationActive={false} />)}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details className="chart-table">
        <summary>Show the numbers as a table</summary>
        <div className="table-wrap" tabIndex={0}>
          <table>
            <caption className="visually-hidden">{props.title}</caption>
            <thead><tr><th scope="col">Day</th>{props.series.map((s) => <th scope="col" key={s.key} className="num">{s.label}</th>)}</tr></thead>
            <tbody>
              {props.rows.map((row) => (
                <tr key={row.date}><th scope="row">{row.label}</th>{props.series.map((s) => <td key={s.key} className="num">{row[s.key]}</td>)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** Messages per day, by channel (accepted) or by outcome (delivered, bounced, failed). */
export default function OverviewChart(props: { days: readonly UsageDay[] }) {
  return (
    <Ariakit.TabProvider defaultSelectedId="by-channel">
      <Ariakit.TabList className="tabs" aria-label="Chart view">
        <Ariakit.Tab className="tab" id="by-channel">By channel</Ariakit.Tab>
        <Ariakit.Tab className="tab" id="by-outcome">By outcome</Ariakit.Tab>
      </Ariakit.TabList>
      <Ariakit.TabPanel tabId="by-channel" className="tab-panel">
        <Chart rows={rowsOf(props.days, 'channel')} series={CHANNEL_SERIES} title="Messages accepted per day, by channel" />
      </Ariakit.TabPanel>
      <Ariakit.TabPanel tabId="by-outcome" className="tab-panel">
        <Chart rows={rowsOf(props.days, 'outcome')} series={OUTCOME_SERIES} title="Messages per day, by outcome" />
      </Ariakit.TabPanel>
    </Ariakit.TabProvider>
  );
}
