import { useQuery } from '@tanstack/react-query';
import { Trans, useTranslation } from 'react-i18next';
import { healthQuery } from '../../api/operator/health.ts';
import { DataTable } from '../../components/data-table.tsx';
import { Page, Section } from '../../components/page.tsx';
import { Empty, QueryState } from '../../components/query-state.tsx';
import { Time } from '../../components/time.tsx';
import { channelName, formatCount } from '../../lib/format.ts';

/** An age in the unit that reads best, as Intl words it in the page's language. */
function age(seconds: number | null, language: string): string {
  if (seconds === null) return '—';
  const [value, unit] = seconds < 120 ? [seconds, 'second'] : seconds < 7200 ? [seconds / 60, 'minute'] : [seconds / 3600, 'hour'];
  return new Intl.NumberFormat(language, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 0 }).format(value);
}

/** Process roles, queues per channel with their oldest message's age, the webhook backlog, failures in the last hour. */
export default function OperatorHealthPage() {
  const { t, i18n } = useTranslation('operator');
  const health = useQuery({ ...healthQuery, refetchInterval: 10_000 });
  return (
    <Page title={t('health.title')} description={t('health.lede')}>
      <QueryState query={health}>
        {(h) => (
          <>
            {h.delivery_held !== null && (
              <p className="state error" role="alert">
                <Trans t={t} i18nKey="health.held" values={{ reason: h.delivery_held.reason, release: h.delivery_held.release }}
                  components={{ time: <Time iso={h.delivery_held.since} />, code: <code /> }} />
              </p>
            )}
            <Section title={t('health.now')} id="now">
              <dl className="stats">
                <div className="stat"><dt>{t('health.backlog')}</dt><dd>{formatCount(h.webhook_backlog)}</dd></div>
                <div className="stat"><dt>{t('health.failures')}</dt><dd>{formatCount(h.failures_last_hour)}</dd></div>
                <div className="stat"><dt>{t('health.queued')}</dt><dd>{formatCount(h.queues.reduce((n, q) => n + q.queued, 0))}</dd></div>
              </dl>
            </Section>
            <Section title={t('health.queues')} id="queues">
              <DataTable rows={h.queues} rowKey={(q) => q.channel} columns={[
                { header: t('health.channel'), cell: (q) => channelName(q.channel) },
                { header: t('health.queuedColumn'), num: true, cell: (q) => formatCount(q.queued) },
                { header: t('health.oldest'), num: true, cell: (q) => age(q.oldest_age_seconds, i18n.language) },
              ]} />
            </Section>
            <Section title={t('health.processes')} id="processes">
              {h.processes.length === 0 ? <Empty title={t('health.noProcess')} /> : (
                <DataTable rows={h.processes} rowKey={(p) => `${p.host}-${p.pid}`} columns={[
                  { header: t('health.role'), cell: (p) => p.role },
                  { header: t('health.host'), cell: (p) => p.host },
                  { header: t('health.pid'), num: true, cell: (p) => p.pid },
                  { header: t('health.started'), cell: (p) => <Time iso={p.started_at} /> },
                  { header: t('health.lastSeen'), cell: (p) => <Time iso={p.last_seen_at} /> },
                ]} />
              )}
            </Section>
          </>
        )}
      </QueryState>
    </Page>
  );
}
