import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { apiRequestKeys, fetchApiRequests } from '../api/api-requests.ts';
import { apiKeysQuery } from '../api/keys.ts';
import { CursorPager, useCursorPagesInAddress } from '../components/cursor-pager.tsx';
import { DataTable } from '../components/data-table.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';
import './api-requests.css';

/** The requests one API key made, newest first, as Resend shows them: method, path, status, time, request id. */
export default function ApiRequestsPage() {
  const { t } = useTranslation('requests');
  const keyId = useParams().keyId ?? '';
  const keys = useQuery(apiKeysQuery);
  const key = keys.data?.api_keys.find((k) => k.key_id === keyId);
  const pages = useCursorPagesInAddress();
  const cursor = pages.cursor;
  const log = useQuery({
    queryKey: apiRequestKeys.page(keyId, cursor),
    queryFn: () => fetchApiRequests(keyId, cursor),
    placeholderData: (previous) => previous,
    staleTime: 0,
  });
  const name = key === undefined ? keyId : key.name === '' ? t('unnamed') : key.name;
  return (
    <Page title={t('title', { name })} description={<Link to="/api-keys">{t('back')}</Link>}
      actions={<button type="button" className="button secondary small" onClick={() => void log.refetch()}>{t('refresh')}</button>}>
      <Section title={t('log')}>
        <p className="hint">{t('hint')}</p>
        <QueryState query={log} isEmpty={(d) => d.data.length === 0 && cursor === undefined} empty={<Empty title={t('none')}>{t('noneHint')}</Empty>}>
          {(data) => (
            <>
              <p className="muted" role="status">
                {data.total_capped ? t('countCapped', { total: formatCount(data.total) }) : t('count', { count: data.total, total: formatCount(data.total) })}
              </p>
              <DataTable rows={data.data} rowKey={(r) => r.id} loading={log.isPlaceholderData} caption={t('caption')} columns={[
                { header: t('column.path'), cellClassName: 'break', cell: (r) => <><code>{r.method}</code> <code>{r.path}</code></> },
                { header: t('column.status'), cell: (r) => <span className={`badge ${r.status < 400 ? 'good' : r.status < 500 ? 'warn' : 'bad'}`}>{r.status}</span> },
                { header: t('column.duration'), num: true, cell: (r) => t('ms', { ms: formatCount(r.duration_ms) }) },
                { header: t('column.time'), cell: (r) => <Time iso={r.created_at} /> },
                { header: t('column.requestId'), cell: (r) => <code className="small request-id">{r.request_id}</code> },
              ]} />
              <CursorPager label={t('pages')} pages={pages} nextCursor={data.next_cursor} newestFirst />
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}
