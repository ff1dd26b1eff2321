import * as Ariakit from '@ariakit/react';
import type { Counts, UsageDay } from '../api/types.ts';
import BarChartFigure, { type ChartRow } from '../components/bar-chart-figure.tsx';
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

function rowsOf(days: readonly UsageDay[], view: 'channel' | 'outcome'): ChartRow[] {
  return days.map((day): ChartRow => {
    const label = localDate(`${day.date}T12:00:00Z`);
    return view === 'channel'
      ? { id: day.date, label, email: day.email.accepted, sms: day.sms.accepted, whatsapp: day.whatsapp.accepted }
      : { id: day.date, label, delivered: sum(day, 'delivered'), bounced: sum(day, 'bounced'), failed: sum(day, 'failed') };
  });
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
        <BarChartFigure rows={rowsOf(props.days, 'channel')} series={CHANNEL_SERIES} title="Messages accepted per day, by channel" rowHeader="Day" stacked />
      </Ariakit.TabPanel>
      <Ariakit.TabPanel tabId="by-outcome" className="tab-panel">
        <BarChartFigure rows={rowsOf(props.days, 'outcome')} series={OUTCOME_SERIES} title="Messages per day, by outcome" rowHeader="Day" stacked />
      </Ariakit.TabPanel>
    </Ariakit.TabProvider>
  );
}
