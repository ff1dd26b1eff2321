import { useQuery } from '@tanstack/react-query';
import { healthQuery } from '../../api/operator/health.ts';
import { DataTable } from '../../components/data-table.tsx';
import { Page, Section } from '../../components/page.tsx';
import { Empty, QueryState } from '../../components/query-state.tsx';
import { Time } from '../../components/time.tsx';
import { formatCount } from '../../lib/format.ts';

function age(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** Process roles, queues per channel with their oldest message's age, the webhook backlog, failures in the last hour. */
export default function OperatorHealthPage() {
  const health = useQuery({ ...healthQuery, refetchInterval: 10_000 });
  return (
    <Page title="Service health" description="Refreshed every 10 seconds.">
      <QueryState query={health}>
        {(h) => (
          <>
            {h.delivery_held !== null && (
              <p className="state error" role="alert">
                Delivery is held since <Time iso={h.delivery_held.since} /> ({h.delivery_held.reason}): messages are accepted and kept queued,
                none is delivered and no webhook is posted. Release it after review with <code>{h.delivery_held.release}</code>.
              </p>
            )}
            <Section title="Now">
              <dl className="stats">
                <div className="stat"><dt>Webhook backlog</dt><dd>{formatCount(h.webhook_backlog)}</dd></div>
                <div className="stat"><dt>Failures, last hour</dt><dd>{formatCount(h.failures_last_hour)}</dd></div>
                <div className="stat"><dt>Queued messages</dt><dd>{formatCount(h.queues.reduce((n, q) => n + q.queued, 0))}</dd></div>
              </dl>
            </Section>
            <Section title="Queues">
              <DataTable rows={h.queues} rowKey={(q) => q.channel} columns={[
                { header: 'Channel', cell: (q) => q.channel },
                { header: 'Queued', num: true, cell: (q) => formatCount(q.queued) },
                { header: 'Oldest waiting', num: true, cell: (q) => age(q.oldest_age_seconds) },
              ]} />
            </Section>
            <Section title="Processes">
              {h.processes.length === 0 ? <Empty title="No process has reported in" /> : (
                <DataTable rows={h.processes} rowKey={(p) => `${p.host}-${p.pid}`} columns={[
                  { header: 'Role', cell: (p) => p.role },
                  { header: 'Host', cell: (p) => p.host },
                  { header: 'pid', num: true, cell: (p) => p.pid },
                  { header: 'Started', cell: (p) => <Time iso={p.started_at} /> },
                  { header: 'Last seen', cell: (p) => <Time iso={p.last_seen_at} /> },
                ]} />
              )}
            </Section>
          </>
        )}
      </QueryState>
    </Page>
  );
}
