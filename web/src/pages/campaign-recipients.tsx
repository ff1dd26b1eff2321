import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { campaignKeys, fetchRecipients, RECIPIENT_STATUSES } from '../api/campaigns.ts';
import { DataTable } from '../components/data-table.tsx';
import { SelectField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { CursorPager, useCursorPages } from '../components/cursor-pager.tsx';

/** Who got what: the campaign's messages in contact order, each a link to the message's page. */
export function CampaignRecipients(props: { campaignId: string; live: boolean }) {
  const { t } = useTranslation('audience');
  const [status, setStatus] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const recipients = useQuery({
    queryKey: campaignKeys.recipients(props.campaignId, status, cursor),
    queryFn: () => fetchRecipients(props.campaignId, status, cursor),
    placeholderData: (previous) => previous,
    refetchInterval: props.live ? 5000 : false,
  });
  return (
    <Section title={t('recipients.title')}>
      <div className="filters narrow">
        <SelectField label={t('recipients.status')} value={status} onChange={(e) => { setStatus(e.target.value); pages.reset(); }}>
          <option value="">{t('recipients.any')}</option>
          {RECIPIENT_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </SelectField>
      </div>
      <QueryState query={recipients} isEmpty={(d) => d.recipients.length === 0 && cursor === undefined}
        empty={<Empty title={status === '' ? t('recipients.none') : t('recipients.noneWith', { status })}>{status === '' && props.live ? <p>{t('recipients.batches')}</p> : null}</Empty>}>
        {(data) => (
          <>
            <DataTable rows={data.recipients} rowKey={(r) => r.msgid} loading={recipients.isPlaceholderData} columns={[
              { header: t('recipients.recipient'), cell: (r) => <Link to={`/messages/${r.msgid}`}>{r.email}</Link> },
              { header: t('contact.status'), cell: (r) => <StatusBadge status={r.status} /> },
              { header: t('saved.updated'), cell: (r) => <Time iso={r.updated_at} /> },
            ]} />
            <CursorPager label={t('recipients.pages')} pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryState>
    </Section>
  );
}
