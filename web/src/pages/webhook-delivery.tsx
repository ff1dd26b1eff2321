import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { allows, useSession } from '../api/session.ts';
import { deliveryQuery, retryDelivery, webhookKeys } from '../api/webhooks.ts';
import { DataTable } from '../components/data-table.tsx';
import { Page, Section } from '../components/page.tsx';
import { PENDING_POLL_MS } from './webhook-delivery-log.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';

/** One delivery: the body posted and every attempt with the receiver's answer. */
export default function WebhookDeliveryPage() {
  const id = useParams().id ?? '';
  const client = useQueryClient();
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const delivery = useQuery({
    ...deliveryQuery(id),
    // Pending: an attempt is coming; it appears below when made.
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? PENDING_POLL_MS : false),
  });
  const retry = useMutation({
    mutationFn: () => retryDelivery(id),
    onSuccess: () => void client.invalidateQueries({ queryKey: webhookKeys.delivery(id) }),
  });
  return (
    <Page title="Webhook delivery" description={<Link to="/webhooks">← Webhooks</Link>}
      actions={canWrite ? <button type="button" className="button" disabled={retry.isPending} onClick={() => retry.mutate()}>Retry now</button> : undefined}>
      {retry.isError ? <ErrorNotice error={retry.error} /> : null}
      {retry.isSuccess ? <p className="notice" role="status">Queued again; the attempt appears below when it is made.</p> : null}
      <QueryState query={delivery}>
        {(d) => (
          <>
            <Section title="Summary">
              <dl className="facts">
                <div><dt>Event</dt><dd>{d.type}</dd></div>
                <div><dt>webhook-id</dt><dd><code>{d.id}</code></dd></div>
                <div><dt>Status</dt><dd><StatusBadge status={d.status} /></dd></div>
                <div><dt>Message</dt><dd>{d.msgid === null ? <span className="muted">none (test event)</span> : <Link to={`/messages/${d.msgid}`}>{d.msgid}</Link>}</dd></div>
                <div><dt>Created</dt><dd><Time iso={d.created_at} /></dd></div>
                <div><dt>Next attempt</dt><dd><Time iso={d.next_attempt_at} fallback="none scheduled" /></dd></div>
              </dl>
            </Section>
            <Section title="Attempts">
              {d.attempts.length === 0 ? <p className="muted">No attempt yet.</p> : (
                <DataTable rows={d.attempts} rowKey={(_a, i) => i} columns={[
                  { header: 'When', cell: (a) => <Time iso={a.at} /> },
                  { header: 'URL', cellClassName: 'break', cell: (a) => a.url },
                  { header: 'Answer', cell: (a) => <>{a.status_code === null ? <span className="muted">no answer</span> : <StatusBadge status={a.status_code >= 200 && a.status_code < 300 ? 'succeeded' : 'failed'} />} {a.status_code}</> },
                  { header: 'Error', cell: (a) => a.error ?? '' },
                  { header: 'Took', num: true, cell: (a) => `${a.duration_ms} ms` },
                ]} />
              )}
            </Section>
            <Section title="Body posted"><pre className="text-preview" tabIndex={0}>{JSON.stringify(d.payload, null, 2)}</pre></Section>
          </>
        )}
      </QueryState>
    </Page>
  );
}
