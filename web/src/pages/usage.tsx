import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchLedger, usageKeys } from '../api/usage.ts';
import { CursorPager, useCursorPages } from '../components/cursor-pager.tsx';
import { DataTable } from '../components/data-table.tsx';
import { TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { formatCount, formatMoney, isoFromLocalDate } from '../lib/format.ts';

const signed = (n: number, format: (n: number) => string): string => (n > 0 ? `+${format(n)}` : n === 0 ? '—' : format(n));

/** The ledger: every debit, refund and top-up of messages and money. */
export default function UsagePage() {
  const { t } = useTranslation('live');
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
    <Page title={t('usage.title')} description={t('usage.description')}>
      <Section title={t('usage.dates')}>
        <form onSubmit={submit} className="filters" aria-label={t('usage.datesLabel')}>
          <TextField label={t('usage.from')} type="date" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.target.value })} />
          <TextField label={t('usage.to')} type="date" value={draft.until} onChange={(e) => setDraft({ ...draft, until: e.target.value })} />
          <div className="filter-actions"><button type="submit" className="button">{t('usage.show')}</button></div>
        </form>
      </Section>
      <Section title={t('usage.ledger')}>
        <QueryState query={ledger} isEmpty={(d) => d.entries.length === 0 && cursor === undefined} empty={<Empty title={t('usage.empty')} />}>
          {(data) => (
            <>
              <DataTable rows={data.entries} rowKey={(e) => e.entry_id} columns={[
                { header: t('usage.when'), cell: (e) => <Time iso={e.at} /> },
                { header: t('usage.kind'), cell: (e) => e.kind },
                { header: t('usage.messages'), num: true, cell: (e) => signed(e.messages, formatCount) },
                { header: t('usage.balance'), num: true, cell: (e) => signed(e.amount, formatMoney) },
                { header: t('usage.reason'), cell: (e) => e.reason ?? '' },
                { header: t('usage.send'), cellClassName: 'mono small', cell: (e) => e.send_id ?? '' },
              ]} />
              <CursorPager label={t('usage.pages')} pages={pages} nextCursor={data.next_cursor} newestFirst />
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}
