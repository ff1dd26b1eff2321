import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { CHANNELS } from '@herald/domain/account.ts';
import { MESSAGE_STATUSES } from '@herald/domain/message-status.ts';
import { fetchMessages, messageKeys } from '../api/messages.ts';
import { CursorPager, useCursorPagesInAddress } from '../components/cursor-pager.tsx';
import { DataTable } from '../components/data-table.tsx';
import { SelectField, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { isoFromLocalDate } from '../lib/format.ts';

const FILTERS = ['recipient', 'status', 'channel', 'since', 'until'] as const;

/** Every channel in one log, newest first; filters live in the address so a view can be shared. */
export default function MessagesPage() {
  const [params] = useSearchParams();
  const filter = Object.fromEntries(FILTERS.map((key) => [key, params.get(key) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const pages = useCursorPagesInAddress();
  const cursor = pages.cursor;
  const messages = useQuery({
    queryKey: messageKeys.page(filter, cursor),
    queryFn: () => fetchMessages({ ...filter, since: isoFromLocalDate(filter.since), until: isoFromLocalDate(filter.until, true) }, cursor),
    placeholderData: (previous) => previous,
    // Sends made with a key meanwhile must show on coming back to the log (the app's
    // default keeps data fresh for 10 s).
    staleTime: 0,
  });

  const apply = (next: Record<string, string>): void => pages.reset(Object.fromEntries(Object.entries(next).filter(([, v]) => v !== '')));

  return (
    <Page title="Messages" description="Email, SMS and WhatsApp, newest first. With the capture transports this is the test inbox.">
      <Section title="Filter">
        <FilterForm initial={filter} onApply={apply} />
      </Section>
      <Section title="Log">
        <QueryState query={messages} isEmpty={(d) => d.data.length === 0 && cursor === undefined}
          empty={<Empty title={Object.values(filter).some((v) => v !== '') ? 'No message matches these filters' : 'No messages yet'}>
            {Object.values(filter).some((v) => v !== '') ? <button type="button" className="button secondary" onClick={() => apply({})}>Clear the filters</button> : <p>Sends made with an API key appear here at once. <Link to="/">See how to send</Link>.</p>}
          </Empty>}>
          {(data) => (
            <>
              <DataTable rows={data.data} rowKey={(m) => m.msgid} loading={messages.isPlaceholderData} columns={[
                { header: 'Recipient', cell: (m) => <Link to={`/messages/${m.msgid}`}>{m.recipient}</Link> },
                { header: 'Channel', cell: (m) => m.channel },
                { header: 'Status', cell: (m) => <StatusBadge status={m.status} /> },
                { header: 'Created', cell: (m) => <Time iso={m.created_at} /> },
                { header: 'Updated', cell: (m) => <Time iso={m.updated_at} /> },
              ]} />
              <CursorPager label="Pages" pages={pages} nextCursor={data.next_cursor} newestFirst />
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}

function FilterForm(props: { initial: Record<string, string>; onApply: (filter: Record<string, string>) => void }) {
  const [draft, setDraft] = useState(props.initial);
  const set = (key: string) => (event: { target: { value: string } }) => setDraft({ ...draft, [key]: event.target.value });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    props.onApply({ ...draft, recipient: (draft.recipient ?? '').trim() });
  };
  return (
    <form onSubmit={submit} className="filters" role="search" aria-label="Messages">
      <TextField label="Recipient" value={draft.recipient ?? ''} onChange={set('recipient')} placeholder="exact address or number" />
      <SelectField label="Status" value={draft.status ?? ''} onChange={set('status')}>
        <option value="">any</option>
        {MESSAGE_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <SelectField label="Channel" value={draft.channel ?? ''} onChange={set('channel')}>
        <option value="">any</option>
        {CHANNELS.map((c) => <option key={c} value={c}>{c}</option>)}
      </SelectField>
      <TextField label="From" type="date" value={draft.since ?? ''} onChange={set('since')} />
      <TextField label="To" type="date" value={draft.until ?? ''} onChange={set('until')} />
      <div className="filter-actions"><button type="submit" className="button">Apply</button></div>
    </form>
  );
}
