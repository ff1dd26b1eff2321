import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { fetchDeliveries, retryDelivery, retryFailedSince, sendTestEvent, webhookKeys } from '../api/webhooks.ts';
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
  const [trail, setTrail] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
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
        <SelectField label="Status" value={status} onChange={(e) => { setStatus(e.target.value); setCursor(undefined); setTrail([]); }}>
          <option value="">any</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </SelectField>
      </div>
      {retry.isError ? <ErrorNotice error={retry.error} /> : null}
      <QueryState query={log} isEmpty={(d) => d.data.length === 0 && cursor === undefined} empty={<Empty title="No deliveries yet">Events appear here as herald posts them.</Empty>}>
        {(data) => (
          <>
            <div className="table-wrap" tabIndex={0}>
              <table>
                <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th>{props.canWrite ? <th scope="col"><span className="visually-hidden">Actions</span></th> : null}</tr></thead>
                <tbody>
                  {data.data.map((d) => (
                    <tr key={d.id}>
                      <th scope="row"><Link to={`/webhooks/deliveries/${d.id}`}>{d.type}</Link>{d.msgid === null ? null : <div className="muted mono small">{d.msgid}</div>}</th>
                      <td><StatusBadge status={d.status} />{d.next_attempt_at === null ? null : <div className="small muted">next <Time iso={d.next_attempt_at} /></div>}</td>
                      <td className="num">{d.attempt_count}</td>
                      <td>{d.last_status_code ?? ''} {d.last_error === null ? null : <span className="muted">{d.last_error}</span>}</td>
                      <td><Time iso={d.created_at} /></td>
                      {props.canWrite ? <td><button type="button" className="button small secondary" disabled={retry.isPending} onClick={() => retry.mutate(d.id)} aria-label={`Retry ${d.type} ${d.id}`}>Retry</button></td> : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav className="pager" aria-label="Delivery log pages">
              <button type="button" className="button secondary" disabled={cursor === undefined} onClick={() => { setCursor(trail.at(-1)); setTrail(trail.slice(0, -1)); }}>← Newer</button>
              <button type="button" className="button secondary" disabled={data.next_cursor === null}
                onClick={() => { if (data.next_cursor !== null) { setTrail(cursor === undefined ? [] : [...trail, cursor]); setCursor(data.next_cursor); } }}>Older →</button>
            </nav>
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
