import { useQuery } from '@tanstack/react-query';
import { healthQuery } from '../../api/operator/health.ts';
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
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <thead><tr><th scope="col">Channel</th><th scope="col" className="num">Queued</th><th scope="col" className="num">Oldest waiting</th></tr></thead>
                  <tbody>{h.queues.map((q) => <tr key={q.channel}><th scope="row">{q.channel}</th><td className="num">{formatCount(q.queued)}</td><td className="num">{age(q.oldest_age_seconds)}</td></tr>)}</tbody>
                </table>
              </div>
            </Section>
            <Section title="Processes">
              {h.processes.length === 0 ? <Empty title="No process has reported in" /> : (
                <div className="table-wrap" tabIndex={0}>
                  <table>
                    <thead><tr><th scope="col">Role</th><th scope="col">Host</th><th scope="col" className="num">pid</th><th scope="col">Started</th><th scope="col">Last seen</th></tr></thead>
                    <tbody>{h.processes.map((p) => <tr key={`${p.host}-${p.pid}`}><th scope="row">{p.role}</th><td>{p.host}</td><td className="num">{p.pid}</td><td><Time iso={p.started_at} /></td><td><Time iso={p.last_seen_at} /></td></tr>)}</tbody>
                  </table>
                </div>
              )}
            </Section>
          </>
        )}
      </QueryState>
    </Page>
  );
}
