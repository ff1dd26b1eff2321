import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { exportContacts } from '../api/contacts.ts';
import { ErrorNotice } from '../components/query-state.tsx';
import { download } from '../lib/download.ts';

/** Downloads the account's contacts, or one list's, as herald's CSV (GET /v1/contacts/export). */
export function ExportContacts(props: { listId: string | undefined }) {
  const { t } = useTranslation('audience');
  const exportCsv = useMutation({
    mutationFn: async () => {
      const csv = await exportContacts(props.listId);
      download(csv, props.listId === undefined ? 'contacts.csv' : `contacts-${props.listId}.csv`, 'text/csv');
      // The header and the final line break are not contacts.
      return csv.split('\r\n').length - 2;
    },
  });
  return (
    <>
      <button type="button" className="button secondary" disabled={exportCsv.isPending} onClick={() => exportCsv.mutate()}>
        {exportCsv.isPending ? t('export.busy') : props.listId === undefined ? t('export.all') : t('export.list')}
      </button>
      {exportCsv.isError ? <ErrorNotice error={exportCsv.error} /> : null}
      {exportCsv.isSuccess ? <span className="visually-hidden" role="status">{t('export.done', { count: exportCsv.data })}</span> : null}
    </>
  );
}
