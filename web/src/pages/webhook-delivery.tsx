import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { allows, useSession } from '../api/session.ts';
import { deliveryQuery, retryDelivery, webhookKeys } from '../api/webhooks.ts';
import { DataTable } from '../components/data-table.tsx';
import { Page, Section } from '../components/page.tsx';
import { PENDING_POLL_MS } from './webhook-delivery-log.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';

/** One delivery: the body posted and every attempt with the receiver's answer. */
export default function WebhookDeliveryPage() {
  const { t } = useTranslation('messages');
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
    <Page title={t('delivery.title')} description={<Link to="/webhooks">{t('delivery.back')}</Link>}
      actions={canWrite ? <button type="button" className="button" disabled={retry.isPending} onClick={() => retry.mutate()}>{t('delivery.retryNow')}</button> : undefined}>
      {retry.isError ? <ErrorNotice error={retry.error} /> : null}
      {retry.isSuccess ? <p className="notice" role="status">{t('delivery.queuedAgain')}</p> : null}
      <QueryState query={delivery}>
        {(d) => (
          <>
            <Section title={t('delivery.summary')}>
              <dl className="facts">
                <div><dt>{t('delivery.event')}</dt><dd>{d.type}</dd></div>
                <div><dt>{t('delivery.webhookId')}</dt><dd><code>{d.id}</code></dd></div>
                <div><dt>{t('delivery.status')}</dt><dd><StatusBadge status={d.status} /></dd></div>
                <div><dt>{t('delivery.message')}</dt><dd>{d.msgid === null ? <span className="muted">{t('delivery.testEvent')}</span> : <Link to={`/messages/${d.msgid}`}>{d.msgid}</Link>}</dd></div>
                <div><dt>{t('delivery.created')}</dt><dd><Time iso={d.created_at} /></dd></div>
                <div><dt>{t('delivery.nextAttempt')}</dt><dd><Time iso={d.next_attempt_at} fallback={t('delivery.noneScheduled')} /></dd></div>
              </dl>
            </Section>
            <Section title={t('delivery.attempts')}>
              {d.attempts.length === 0 ? <p className="muted">{t('delivery.noAttempt')}</p> : (
                <DataTable rows={d.attempts} rowKey={(_a, i) => i} columns={[
                  { header: t('delivery.when'), cell: (a) => <Time iso={a.at} /> },
                  { header: 'URL', cellClassName: 'break', cell: (a) => a.url },
                  { header: t('delivery.answer'), cell: (a) => <>{a.status_code === null ? <span className="muted">{t('delivery.noAnswer')}</span> : <StatusBadge status={a.status_code >= 200 && a.status_code < 300 ? 'succeeded' : 'failed'} />} {a.status_code}</> },
                  { header: t('delivery.error'), cell: (a) => a.error ?? '' },
                  { header: t('delivery.took'), num: true, cell: (a) => t('delivery.ms', { ms: formatCount(a.duration_ms) }) },
                ]} />
              )}
            </Section>
            <Section title={t('delivery.body')}><pre className="text-preview" tabIndex={0}>{JSON.stringify(d.payload, null, 2)}</pre></Section>
          </>
        )}
      </QueryState>
    </Page>
  );
}
