import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useDeferredValue, useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { ApiError } from '../api/http.ts';
import { allows, useSession } from '../api/session.ts';
import { addSuppressions, exportSuppressions, fetchSuppressions, removeSuppression, suppressionKeys } from '../api/suppressions.ts';
import type { SuppressionView } from '../api/types.ts';
import { DataTable } from '../components/data-table.tsx';
import { TextArea, TextField } from '../components/field.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, Loading } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { download } from '../lib/download.ts';
import { formatCount } from '../lib/format.ts';

export default function SuppressionsPage() {
  const { t } = useTranslation('suppressions');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const [search, setSearch] = useState('');
  // herald searches the whole list (?q=); typing fast asks once the input settles.
  const needle = useDeferredValue(search.trim().toLowerCase());
  const list = useInfiniteQuery({
    queryKey: suppressionKeys.search(needle),
    queryFn: ({ pageParam }) => fetchSuppressions(needle, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: (previous) => previous,
  });
  const rows = (list.data?.pages ?? []).flatMap((p) => p.data);
  return (
    <Page title={t('title')} description={t('description')}
      actions={<ExportButton q={needle} />}>
      {canWrite ? <AddSuppressions /> : null}
      <Section title={t('list.title')} id="suppressed">
        <div className="inline-form" role="search" aria-label={t('title')}>
          <TextField label={t('list.search')} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder={t('list.searchPlaceholder')} />
        </div>
        {list.isPending ? <Loading /> : list.isError ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} /> : rows.length === 0 && !list.hasNextPage ? (
          <Empty title={needle === '' ? t('list.none') : t('list.noMatch')}>{needle === '' ? t('list.noneHint') : null}</Empty>
        ) : (
          <>
            <SuppressionTable rows={rows} canWrite={canWrite} />
            {list.hasNextPage ? (
              <div className="pager">
                <button type="button" className="button secondary" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>{t('list.loadMore')}</button>
              </div>
            ) : null}
          </>
        )}
      </Section>
    </Page>
  );
}

function SuppressionTable(props: { rows: readonly SuppressionView[]; canWrite: boolean }) {
  const { t } = useTranslation('suppressions');
  const client = useQueryClient();
  const [removing, setRemoving] = useState<string | undefined>();
  const remove = useMutation({
    mutationFn: removeSuppression,
    onSuccess: () => {
      setRemoving(undefined);
      void client.invalidateQueries({ queryKey: suppressionKeys.all });
    },
  });
  return (
    <>
      <DataTable rows={props.rows} rowKey={(s) => s.email} columns={[
        { header: t('table.address'), cell: (s) => s.email },
        { header: t('table.reason'), cell: (s) => <StatusBadge status={s.reason} /> },
        { header: t('table.since'), cell: (s) => <Time iso={s.created_at} /> },
        props.canWrite && { header: t('table.actions'), hiddenHeader: true, cell: (s) => <button type="button" className="button small secondary" onClick={() => setRemoving(s.email)} aria-label={t('table.removeLabel', { email: s.email })}>{t('table.remove')}</button> },
      ]} />
      <ConfirmDialog open={removing !== undefined} onClose={() => { setRemoving(undefined); remove.reset(); }} title={t('remove.title')}
        confirmLabel={t('remove.confirm')} busy={remove.isPending} onConfirm={() => removing !== undefined && remove.mutate(removing)}>
        <p><Trans t={t} i18nKey="remove.body" components={{ email: <strong>{removing}</strong> }} /></p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
    </>
  );
}

function AddSuppressions() {
  const { t } = useTranslation('suppressions');
  const client = useQueryClient();
  const [text, setText] = useState('');
  const emails = text.split(/[\s,;]+/).map((e) => e.trim()).filter(Boolean);
  const add = useMutation({
    mutationFn: () => addSuppressions(emails),
    onSuccess: () => {
      setText('');
      void client.invalidateQueries({ queryKey: suppressionKeys.all });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (emails.length > 0) add.mutate();
  };
  const offending = offendingAddresses(add.error);
  return (
    <Section title={t('add.title')} id="add-addresses">
      <form onSubmit={submit} noValidate>
        <TextArea label={t('add.label')} rows={3} value={text} onChange={(e) => setText(e.target.value)} placeholder={t('add.placeholder')}
          hint={t('add.hint', { max: formatCount(1000) })} />
        {add.isError ? <ErrorNotice error={add.error} /> : null}
        {offending.length > 0 ? <p className="field-error">{t('add.notAddresses', { list: offending.join(', ') })}</p> : null}
        {add.isSuccess ? <p className="notice" role="status">{t('add.done', { count: add.data.data.length })}</p> : null}
        <button type="submit" className="button" disabled={add.isPending || emails.length === 0}>{t('add.submit')}</button>
      </form>
    </Section>
  );
}

function ExportButton(props: { q: string }) {
  const { t } = useTranslation('suppressions');
  const exportCsv = useMutation({
    mutationFn: async () => {
      const csv = await exportSuppressions(props.q);
      download(csv, 'suppressions.csv', 'text/csv');
      return csv.split('\r\n').length - 2;
    },
  });
  return (
    <>
      <button type="button" className="button secondary" disabled={exportCsv.isPending} onClick={() => exportCsv.mutate()}>{exportCsv.isPending ? t('export.busy') : t('export.button')}</button>
      {exportCsv.isError ? <ErrorNotice error={exportCsv.error} /> : null}
      {exportCsv.isSuccess ? <span className="visually-hidden" role="status">{t('export.done', { count: exportCsv.data })}</span> : null}
    </>
  );
}

/** The addresses herald named in a 400 (`error: [{email}, …]`, the spec's validation shape). */
function offendingAddresses(error: unknown): string[] {
  if (!(error instanceof ApiError) || typeof error.body !== 'object' || error.body === null) return [];
  const list = (error.body as { error?: unknown }).error;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => (typeof entry === 'object' && entry !== null && typeof (entry as { email?: unknown }).email === 'string' ? [(entry as { email: string }).email] : []));
}
