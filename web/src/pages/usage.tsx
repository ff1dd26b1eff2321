import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { fetchLedger, usageKeys } from '../api/usage.ts';
import { CursorPager, useCursorPages } from '../components/cursor-pager.tsx';
import { DataTable } from '../components/data-table.tsx';
import { TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { formatMoney, isoFromLocalDate } from '../lib/format.ts';

const signed = (n: number, format: (n: number) => string): string => (n > 0 ? `+${format(n)}` : n === 0 ? '—' : format(n));

/** The ledger: every debit, refund and top-up of messages and money. */
export default function UsagePage() {
  const [range, setRange] = useState({ since: '', until: '' });
  const [draft, setDraft] = useState(range);
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const ledger = useQuery({
    queryKey: usageKeys.ledger(range, cursor),
    queryFn: () => fetchLedger({ since: isoFromLocalDate(range.since), until: isoFromLocalDate(range.until, true) }, cursor),
    placeholderData: (previous) => previous,
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setRange(draft);
    pages.reset();
  };
  return (
    <Page title="Usage" description="Every movement of the account's messages and balance.">
      <Section title="Dates">
        <form onSubmit={submit} className="filters" aria-label="Ledger dates">
          <TextField label="From" type="date" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />
          <TextField label="To" type="date" value={draft.until} onChange={(e) => setDraft({ ...draft, until: e.target.value })} />
          <div className="filter-actions"><button type="submit" className="button">Show</button></div>
        </form>
      </Section>
      <Section title="Ledger">
        <QueryState query={ledger} isEmpty={(d) => d.entries.length === 0 && cursor === undefined} empty={<Empty title="No ledger entries in this period" />}>
          {(data) => (
            <>
              <DataTable rows={data.entries} rowKey={(e) => e.entry_id} columns={[
                { header: 'When', cell: (e) => <Time iso={e.at} /> },
                { header: 'Kind', cell: (e) => e.kind },
                { header: 'Messages', num: true, cell: (e) => signed(e.messages, String) },
                { header: 'Balance', num: true, cell: (e) => signed(e.amount, formatMoney) },
                { header: 'Reason', cell: (e) => e.reason ?? '' },
                { header: 'Send', cellClassName: 'mono small', cell: (e) => e.send_id ?? '' },
              ]} />
              <CursorPager label="Ledger pages" pages={pages} nextCursor={data.next_cursor} newestFirst />
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}
