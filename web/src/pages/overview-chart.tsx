import * as Ariakit from '@ariakit/react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { Counts, UsageDay } from '../api/types.ts';
import BarChartFigure, { type ChartRow } from '../components/bar-chart-figure.tsx';
import { localDate } from '../lib/format.ts';

// Mid-tone colours that read on the light and the dark background alike.
const channelSeries = (t: TFunction<'live'>) => [
  { key: 'email', label: t('channel.email'), color: '#4f7cff' },
  { key: 'sms', label: t('channel.sms'), color: '#15a05a' },
  { key: 'whatsapp', label: t('channel.whatsapp'), color: '#d9822b' },
] as const;
const outcomeSeries = (t: TFunction<'live'>) => [
  { key: 'delivered', label: t('chart.delivered'), color: '#15a05a' },
  { key: 'bounced', label: t('chart.bounced'), color: '#e0484f' },
  { key: 'failed', label: t('chart.failed'), color: '#9b6bf2' },
] as const;

// The tabs' ids.
const BY_CHANNEL = 'by-channel';
const BY_OUTCOME = 'by-outcome';

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
  const { t } = useTranslation('live');
  return (
    <Ariakit.TabProvider defaultSelectedId={BY_CHANNEL}>
      <Ariakit.TabList className="tabs" aria-label={t('chart.view')}>
        <Ariakit.Tab className="tab" id={BY_CHANNEL}>{t('chart.byChannel')}</Ariakit.Tab>
        <Ariakit.Tab className="tab" id={BY_OUTCOME}>{t('chart.byOutcome')}</Ariakit.Tab>
      </Ariakit.TabList>
      <Ariakit.TabPanel tabId={BY_CHANNEL} className="tab-panel">
        <BarChartFigure rows={rowsOf(props.days, 'channel')} series={channelSeries(t)} title={t('chart.channelTitle')} rowHeader={t('chart.day')} stacked />
      </Ariakit.TabPanel>
      <Ariakit.TabPanel tabId={BY_OUTCOME} className="tab-panel">
        <BarChartFigure rows={rowsOf(props.days, 'outcome')} series={outcomeSeries(t)} title={t('chart.outcomeTitle')} rowHeader={t('chart.day')} stacked />
      </Ariakit.TabPanel>
    </Ariakit.TabProvider>
  );
}
