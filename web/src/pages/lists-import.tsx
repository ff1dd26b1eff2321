import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { contactKeys, importQuery, startImport } from '../api/contacts.ts';
import { listKeys } from '../api/lists.ts';
import type { ImportView } from '../api/types.ts';
import { DataTable } from '../components/data-table.tsx';
import { TextArea } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { formatCount } from '../lib/format.ts';

/** The CSV columns herald reads by name, as written in every language. */
const EMAIL_COLUMN = 'email';
const NAME_COLUMN = 'name';
/** What a CSV looks like, as the paste box's placeholder (data, the same in every language). */
const SAMPLE_CSV = 'email,name,city\nana@example.org,Ana,Lima';

/** Files up to this size are read here first, to show the import's progress against their rows. */
const COUNTED_BYTES = 8 * 1024 * 1024;

/** Data rows of a CSV text, for the progress bar: its lines after the header (a quoted line break counts twice; herald's count is the truth). */
function estimateRows(csv: string): number {
  const lines = csv.split(/\r?\n/).filter((line) => line.trim() !== '');
  return Math.max(lines.length - 1, 0);
}

/**
 * Imports contacts into a list from a CSV file (or pasted text): herald stores the file,
 * answers with an import id at once and reads it in the background; this follows it.
 */
export function ImportContacts(props: { listId: string; listName: string }) {
  const { t } = useTranslation('audience');
  const client = useQueryClient();
  const fileId = useId();
  const [file, setFile] = useState<File | undefined>();
  const [pasted, setPasted] = useState('');
  const [expected, setExpected] = useState(0);
  const [importId, setImportId] = useState<string | undefined>();
  const start = useMutation({
    mutationFn: async () => {
      // A big file goes to herald as it is on disk, unread here: its rows read are counted without a total.
      const csv = file === undefined ? pasted : file.size <= COUNTED_BYTES ? await file.text() : file;
      setExpected(typeof csv === 'string' ? estimateRows(csv) : 0);
      return startImport(csv, props.listId);
    },
    onSuccess: (answer) => setImportId(answer.import_id),
  });
  const progress = useQuery({
    ...importQuery(importId ?? ''),
    enabled: importId !== undefined,
    refetchInterval: (query) => (query.state.data?.status === 'running' || query.state.data === undefined ? 1000 : false),
  });
  const done = progress.data !== undefined && progress.data.status !== 'running';
  useEffect(() => {
    if (!done) return;
    void client.invalidateQueries({ queryKey: listKeys.detail(props.listId) });
    void client.invalidateQueries({ queryKey: listKeys.all });
    void client.invalidateQueries({ queryKey: contactKeys.all });
  }, [done, client, props.listId]);

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (file === undefined && pasted.trim() === '') return;
    setImportId(undefined);
    start.mutate();
  };
  const busy = start.isPending || (importId !== undefined && !done);
  return (
    <Section title={t('import.title')}>
      <form onSubmit={submit} noValidate>
        <p className="hint">{t('import.hintBefore')} <code>{EMAIL_COLUMN}</code>{t('import.hintOptional')} <code>{NAME_COLUMN}</code>{t('import.hintAfter', { list: props.listName })}</p>
        <div className="field">
          <label htmlFor={fileId}>{t('import.file')}</label>
          <input id={fileId} type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0] ?? undefined)} />
        </div>
        {file === undefined ? (
          <TextArea label={t('import.paste')} className="code-input" rows={4} value={pasted} onChange={(e) => setPasted(e.target.value)} spellCheck={false}
            placeholder={SAMPLE_CSV} />
        ) : null}
        {start.isError ? <ErrorNotice error={start.error} /> : null}
        {start.isPending ? <p className="muted" role="status">{file === undefined ? t('import.uploading') : t('import.uploadingFile', { file: file.name })}</p> : null}
        <button type="submit" className="button" disabled={busy || (file === undefined && pasted.trim() === '')}>{busy ? t('import.busy') : t('import.submit')}</button>
      </form>
      {importId === undefined ? null : progress.isError ? <ErrorNotice error={progress.error} onRetry={() => void progress.refetch()} /> : <ImportProgress view={progress.data} expected={expected} />}
    </Section>
  );
}

function ImportProgress(props: { view: ImportView | undefined; expected: number }) {
  const { t } = useTranslation('audience');
  const view = props.view;
  const labelId = useId();
  if (view === undefined) return <p className="muted" role="status">{t('import.waiting')}</p>;
  const known = props.expected > 0;
  const max = Math.max(props.expected, view.rows, 1);
  return (
    <div className="import-progress">
      <div className="progress-line">
        <span id={labelId}>{t('import.label')} <StatusBadge status={view.status} />: {known ? t('import.rowsOf', { rows: formatCount(view.rows), total: formatCount(max) }) : t('import.rows', { rows: formatCount(view.rows) })}</span>
        {/* A finished import shows full; a running one its rows read, or a moving bar when the total is not known. */}
        {view.status !== 'running' ? <progress aria-labelledby={labelId} value={1} max={1} />
          : known ? <progress aria-labelledby={labelId} value={view.rows} max={max} /> : <progress aria-labelledby={labelId} />}
      </div>
      <p role="status">
        {view.status === 'running' ? t('import.reading') : view.status === 'finished' ? t('import.finished') : t('import.stopped')}{' '}
        {t('import.tally', { created: formatCount(view.created), updated: formatCount(view.updated), rejected: formatCount(view.rejected) })}
      </p>
      {view.failure === null ? null : <div className="state error" role="alert"><p><strong>{view.failure}</strong></p></div>}
      {view.errors.length === 0 ? null : (
        <DataTable caption={t('import.rejected')} rows={view.errors} rowKey={(e) => e.row} columns={[
          { header: t('import.row'), num: true, cell: (e) => e.row },
          { header: t('import.why'), cell: (e) => e.message },
        ]} />
      )}
      {view.rejected > view.errors.length ? <p className="hint">{t('import.firstRejected', { count: view.errors.length })}</p> : null}
    </div>
  );
}
