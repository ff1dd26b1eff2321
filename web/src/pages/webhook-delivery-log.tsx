import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { fetchDeliveries, retryDelivery, retryFailedSince, sendTestEvent, webhookKeys } from '../api/webhooks.ts';
import { CursorPager, useCursorPages } from '../components/cursor-pager.tsx';
import { DataTable } from '../components/data-table.tsx';
import { SelectField, TextField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { isoFromLocalInput } from '../lib/format.ts';

const STATUSES = ['pending', 'succeeded', 'failed'] as const;
/** How often a view with a pending delivery asks again. */
export const PENDING_POLL_MS = 1_000;

export function DeliveryLog(props: { canWrite: boolean; hasUrl: boolean }) {
  const client = useQueryClient();
  const [status, setStatus] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const log = useQuery({
    queryKey: webhookKeys.deliveryPage(status, cursor),
    queryFn: () => fetchDeliveries(status, cursor),
    placeholderData: (previous) => previous,
    // A delivery still pending is being posted (a test event, a retry): its outcome shows without a click.
    refetchInterval: (query) => (query.state.data?.data.some((d) => d.status === 'pending') === true ? PENDING_POLL_MS : false),
  });
  const refresh = (): Promise<void> => client.invalidateQueries({ queryKey: webhookKeys.deliveries });
  const test = useMutation({ mutationFn: sendTestEvent, onSuccess: () => void refresh() });
  const retry = useMutation({
    mutationFn: retryDelivery,
    onSuccess: () => void refresh(),
  });

  return (
    <Section title="Delivery log" actions={(
      <div className="row">
        <button type="button" className="button secondary small" onClick={() => void refresh()}>Refresh</button>
        {props.canWrite ? <button type="button" className="button small" disabled={test.isPending || !props.hasUrl} onClick={() => test.mutate()}>Send test event</button> : null}
      </div>
    )}>
      {!props.hasUrl ? <p className="hint">Set a URL above to receive events and test events.</p> : null}
      {test.isError ? <ErrorNotice error={test.error} /> : null}
      {test.isSuccess ? <p className="notice" role="status">Test event queued: {test.data.id}</p> : null}
      <div className="inline-form">
        <SelectField label="Status" value={status} onChange={(e) => { setStatus(e.target.value); pages.reset(); }}>
          <option value="">any</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </SelectField>
      </div>
      {retry.isError ? <ErrorNotice error={retry.error} /> : null}
      <QueryState query={log} isEmpty={(d) => d.data.length === 0 && cursor === undefined} empty={<Empty title="No deliveries yet">Events appear here as herald posts them.</Empty>}>
        {(data) => (
          <>
            <DataTable rows={data.data} rowKey={(d) => d.id} columns={[
              { header: 'Event', cell: (d) => <><Link to={`/webhooks/deliveries/${d.id}`}>{d.type}</Link>{d.msgid === null ? null : <div className="muted mono small">{d.msgid}</div>}</> },
              { header: 'Status', cell: (d) => <><StatusBadge status={d.status} />{d.next_attempt_at === null ? null : <div className="small muted">next <Time iso={d.next_attempt_at} /></div>}</> },
              { header: 'Attempts', cellClassName: 'num', cell: (d) => d.attempt_count },
              { header: 'Last answer', cell: (d) => <>{d.last_status_code ?? ''} {d.last_error === null ? null : <span className="muted">{d.last_error}</span>}</> },
              { header: 'Created', cell: (d) => <Time iso={d.created_at} /> },
              props.canWrite && { header: 'Actions', hiddenHeader: true, cell: (d) => <button type="button" className="button small secondary" disabled={retry.isPending} onClick={() => retry.mutate(d.id)} aria-label={`Retry ${d.type} ${d.id}`}>Retry</button> },
            ]} />
            <CursorPager label="Delivery log pages" pages={pages} nextCursor={data.next_cursor} newestFirst />
          </>
        )}
      </QueryState>
      {props.canWrite && props.hasUrl ? <RetryFailedSince onDone={() => void refresh()} /> : null}
    </Section>
  );
}

/** Retries every failed delivery created at or after a time: herald puts them back in the queue in one request. */
function RetryFailedSince(props: { onDone: () => void }) {
  const [since, setSince] = useState('');
  const run = useMutation({
    mutationFn: retryFailedSince,
    onSettled: props.onDone,
  });
  const sinceIso = isoFromLocalInput(since);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (sinceIso !== undefined) run.mutate(sinceIso);
  };
  return (
    <form onSubmit={submit} className="inline-form bulk-retry" noValidate>
      <TextField label="Retry every failed delivery since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} hint="Your local time; up to 10,000 at a time." />
      <button type="submit" className="button secondary" disabled={run.isPending || sinceIso === undefined}>Retry failed</button>
      {run.isSuccess ? <p role="status" className="notice">{`Retrying ${run.data.retried} failed deliver${run.data.retried === 1 ? 'y' : 'ies'}.`}</p> : null}
      {run.isError ? <ErrorNotice error={run.error} /> : null}
    </form>
  );
}
