import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { fetchLedger, usageKeys } from '../api/usage.ts';
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
  const [trail, setTrail] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const ledger = useQuery({
    queryKey: usageKeys.ledger(range, cursor),
    queryFn: () => fetchLedger({ since: isoFromLocalDate(range.since), until: isoFromLocalDate(range.until, true) }, cursor),
    placeholderData: (previous) => previous,
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setRange(draft);
    setCursor(undefined);
    setTrail([]);
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
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col" className="num">Messages</th><th scope="col" className="num">Balance</th><th scope="col">Reason</th><th scope="col">Send</th></tr></thead>
                  <tbody>
                    {data.entries.map((e) => (
                      <tr key={e.entry_id}>
                        <th scope="row"><Time iso={e.at} /></th>
                        <td>{e.kind}</td>
                        <td className="num">{signed(e.messages, String)}</td>
                        <td className="num">{signed(e.amount, formatMoney)}</td>
                        <td>{e.reason ?? ''}</td>
                        <td className="mono small">{e.send_id ?? ''}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav className="pager" aria-label="Ledger pages">
                <button type="button" className="button secondary" disabled={cursor === undefined} onClick={() => { setCursor(trail.at(-1)); setTrail(trail.slice(0, -1)); }}>← Newer</button>
                <button type="button" className="button secondary" disabled={data.next_cursor === null}
                  onClick={() => { if (data.next_cursor !== null) { setTrail(cursor === undefined ? [] : [...trail, cursor]); setCursor(data.next_cursor); } }}>Older →</button>
              </nav>
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}
