import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { contactKeys, importQuery, startImport } from '../api/contacts.ts';
import { listKeys } from '../api/lists.ts';
import type { ImportView } from '../api/types.ts';
import { DataTable } from '../components/data-table.tsx';
import { TextArea } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { formatCount } from '../lib/format.ts';

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
    <Section title="Import contacts">
      <form onSubmit={submit} noValidate>
        <p className="hint">A CSV file with a header row: <code>email</code>, optionally <code>name</code>; every other column becomes an attribute. Rows join “{props.listName}” by its opt-in; an address that unsubscribed is never signed up again by an import.</p>
        <div className="field">
          <label htmlFor={fileId}>CSV file</label>
          <input id={fileId} type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0] ?? undefined)} />
        </div>
        {file === undefined ? (
          <TextArea label="Or paste the CSV" className="code-input" rows={4} value={pasted} onChange={(e) => setPasted(e.target.value)} spellCheck={false}
            placeholder={'email,name,city\nana@example.org,Ana,Lima'} />
        ) : null}
        {start.isError ? <ErrorNotice error={start.error} /> : null}
        {start.isPending ? <p className="muted" role="status">Uploading{file === undefined ? '' : ` ${file.name}`}: herald stores it as it arrives, then reads it in the background…</p> : null}
        <button type="submit" className="button" disabled={busy || (file === undefined && pasted.trim() === '')}>{busy ? 'Importing…' : 'Import'}</button>
      </form>
      {importId === undefined ? null : progress.isError ? <ErrorNotice error={progress.error} onRetry={() => void progress.refetch()} /> : <ImportProgress view={progress.data} expected={expected} />}
    </Section>
  );
}

function ImportProgress(props: { view: ImportView | undefined; expected: number }) {
  const view = props.view;
  const labelId = useId();
  if (view === undefined) return <p className="muted" role="status">Uploaded; waiting for herald to start reading…</p>;
  const known = props.expected > 0;
  const max = Math.max(props.expected, view.rows, 1);
  return (
    <div className="import-progress">
      <div className="progress-line">
        <span id={labelId}>Import <StatusBadge status={view.status} />: {formatCount(view.rows)}{known ? ` of about ${formatCount(max)}` : ''} rows read</span>
        {/* A finished import shows full; a running one its rows read, or a moving bar when the total is not known. */}
        {view.status !== 'running' ? <progress aria-labelledby={labelId} value={1} max={1} />
          : known ? <progress aria-labelledby={labelId} value={view.rows} max={max} /> : <progress aria-labelledby={labelId} />}
      </div>
      <p role="status">
        {view.status === 'running' ? 'Reading… ' : view.status === 'finished' ? 'Import finished: ' : 'Import stopped: '}
        {formatCount(view.created)} created, {formatCount(view.updated)} updated, {formatCount(view.rejected)} rejected.
      </p>
      {view.failure === null ? null : <div className="state error" role="alert"><p><strong>{view.failure}</strong></p></div>}
      {view.errors.length === 0 ? null : (
        <DataTable caption="Rejected rows" rows={view.errors} rowKey={(e) => e.row} columns={[
          { header: 'Row', num: true, cell: (e) => e.row },
          { header: 'Why', cell: (e) => e.message },
        ]} />
      )}
      {view.rejected > view.errors.length ? <p className="hint">The first {view.errors.length} rejected rows are listed.</p> : null}
    </div>
  );
}
