import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fetchDeliveries, retryDelivery, retryFailedSince, sendTestEvent, webhookKeys } from '../api/webhooks.ts';
import { CursorPager, useCursorPages } from '../components/cursor-pager.tsx';
import { DataTable } from '../components/data-table.tsx';
import { SelectField, TextField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { formatCount, isoFromLocalInput } from '../lib/format.ts';

const STATUSES = ['pending', 'succeeded', 'failed'] as const;
/** How often a view with a pending delivery asks again. */
export const PENDING_POLL_MS = 1_000;

/** The first endpoint's delivery log, or with `endpointId` that endpoint's (whose test event is sent from its own page). */
export function DeliveryLog(props: { canWrite: boolean; hasUrl: boolean; endpointId?: string }) {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const [status, setStatus] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const log = useQuery({
    queryKey: webhookKeys.deliveryPage(status, cursor, props.endpointId),
    queryFn: () => fetchDeliveries(status, cursor, props.endpointId),
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
    <Section title={t('deliveries.title')} actions={(
      <div className="row">
        <button type="button" className="button secondary small" onClick={() => void refresh()}>{t('deliveries.refresh')}</button>
        {props.canWrite && props.endpointId === undefined ? <button type="button" className="button small" disabled={test.isPending || !props.hasUrl} onClick={() => test.mutate()}>{t('deliveries.sendTest')}</button> : null}
      </div>
    )}>
      {!props.hasUrl ? <p className="hint">{t('deliveries.setUrl')}</p> : null}
      {test.isError ? <ErrorNotice error={test.error} /> : null}
      {test.isSuccess ? <p className="notice" role="status">{t('deliveries.testQueued', { id: test.data.id })}</p> : null}
      <div className="inline-form">
        <SelectField label={t('deliveries.status')} value={status} onChange={(e) => { setStatus(e.target.value); pages.reset(); }}>
          <option value="">{t('filter.any')}</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </SelectField>
      </div>
      {retry.isError ? <ErrorNotice error={retry.error} /> : null}
      <QueryState query={log} isEmpty={(d) => d.data.length === 0 && cursor === undefined} empty={<Empty title={t('deliveries.none')}>{t('deliveries.noneHint')}</Empty>}>
        {(data) => (
          <>
            <DataTable rows={data.data} rowKey={(d) => d.id} columns={[
              { header: t('deliveries.event'), cell: (d) => <><Link to={`/webhooks/deliveries/${d.id}`}>{d.type}</Link>{d.msgid === null ? null : <div className="muted mono small">{d.msgid}</div>}</> },
              { header: t('deliveries.status'), cell: (d) => <><StatusBadge status={d.status} />{d.next_attempt_at === null ? null : <div className="small muted">{t('deliveries.next')} <Time iso={d.next_attempt_at} /></div>}</> },
              { header: t('deliveries.attempts'), cellClassName: 'num', cell: (d) => d.attempt_count },
              { header: t('deliveries.lastAnswer'), cell: (d) => <>{d.last_status_code ?? ''} {d.last_error === null ? null : <span className="muted">{d.last_error}</span>}</> },
              { header: t('deliveries.created'), cell: (d) => <Time iso={d.created_at} /> },
              props.canWrite && { header: t('deliveries.actions'), hiddenHeader: true, cell: (d) => <button type="button" className="button small secondary" disabled={retry.isPending} onClick={() => retry.mutate(d.id)} aria-label={t('deliveries.retryLabel', { type: d.type, id: d.id })}>{t('deliveries.retry')}</button> },
            ]} />
            <CursorPager label={t('deliveries.pages')} pages={pages} nextCursor={data.next_cursor} newestFirst />
          </>
        )}
      </QueryState>
      {props.canWrite && props.hasUrl ? <RetryFailedSince endpointId={props.endpointId} onDone={() => void refresh()} /> : null}
    </Section>
  );
}

/** Retries every failed delivery created at or after a time: herald puts them back in the queue in one request. */
function RetryFailedSince(props: { endpointId: string | undefined; onDone: () => void }) {
  const { t } = useTranslation('messages');
  const [since, setSince] = useState('');
  const run = useMutation({
    mutationFn: (sinceIso: string) => retryFailedSince(sinceIso, props.endpointId),
    onSettled: props.onDone,
  });
  const sinceIso = isoFromLocalInput(since);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (sinceIso !== undefined) run.mutate(sinceIso);
  };
  return (
    <form onSubmit={submit} className="inline-form bulk-retry" noValidate>
      <TextField label={t('deliveries.retrySince')} type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} hint={t('deliveries.retrySinceHint', { max: formatCount(10_000) })} />
      <button type="submit" className="button secondary" disabled={run.isPending || sinceIso === undefined}>{t('deliveries.retryFailed')}</button>
      {run.isSuccess ? <p role="status" className="notice">{t('deliveries.retrying', { count: run.data.retried, total: formatCount(run.data.retried) })}</p> : null}
      {run.isError ? <ErrorNotice error={run.error} /> : null}
    </form>
  );
}
