import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { CHANNELS } from '@herald/domain/account.ts';
import { MESSAGE_STATUSES } from '@herald/domain/message-status.ts';
import { SEARCH_WINDOW_DAYS } from '@herald/domain/message-search.ts';
import { campaignsQuery } from '../api/campaigns.ts';
import { fetchMessages, MESSAGE_FILTERS, messageKeys, type MessageFilter } from '../api/messages.ts';
import type { MessageSummary } from '../api/types.ts';
import { CursorPager, useCursorPagesInAddress } from '../components/cursor-pager.tsx';
import { DataTable } from '../components/data-table.tsx';
import { SelectField, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { channelName, formatCount, isoFromLocalDate, formatRecipient } from '../lib/format.ts';
import './messages.css';

/** The filter the address holds: the address is the one truth, so Back, a reload and a shared link show the same rows. */
function filterOf(params: URLSearchParams): MessageFilter {
  return Object.fromEntries(MESSAGE_FILTERS.map((key) => [key, params.get(key) ?? ''])) as MessageFilter;
}

/** Every channel in one log, newest first; filters live in the address so a view can be shared. */
export default function MessagesPage() {
  const { t } = useTranslation('messages');
  const [params] = useSearchParams();
  const filter = filterOf(params);
  const filtered = Object.values(filter).some((v) => v !== '');
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
    <Page title={t('list.title')} description={t('list.description')}>
      <Section title={t('filter.title')}>
        {/* Keyed by the address: Back or a shared link puts the form's fields where the rows are. */}
        <FilterForm key={MESSAGE_FILTERS.map((k) => filter[k]).join('\u0000')} initial={filter} onApply={apply} />
      </Section>
      <Section title={t('list.log')}>
        <QueryState query={messages} isEmpty={(d) => d.data.length === 0 && cursor === undefined && d.next_cursor === null}
          empty={<Empty title={filtered ? t('list.noMatch') : t('list.none')}>
            {filtered
              ? <button type="button" className="button secondary" onClick={() => apply({})}>{t('filter.clear')}</button>
              : <p>{t('list.noneHint')} <Link to="/">{t('list.howToSend')}</Link></p>}
          </Empty>}>
          {(data) => (
            <>
              {data.total === undefined ? null : (
                <p className="muted" role="status">
                  {data.total_capped === true ? t('list.countCapped', { total: formatCount(data.total) }) : t('list.count', { count: data.total, total: formatCount(data.total) })}
                </p>
              )}
              <DataTable rows={data.data} rowKey={(m) => m.msgid} loading={messages.isPlaceholderData} caption={t('list.caption')} columns={[
                { header: t('column.recipient'), cell: (m) => <Link to={`/messages/${m.msgid}`}>{formatRecipient(m.channel, m.recipient)}</Link> },
                { header: t('column.subject'), cell: (m) => <WhatItWas message={m} /> },
                { header: t('column.campaign'), cell: (m) => <CampaignCell message={m} /> },
                { header: t('column.channel'), cell: (m) => channelName(m.channel) },
                { header: t('column.status'), cell: (m) => <StatusCell message={m} /> },
                { header: t('column.created'), cell: (m) => <Time iso={m.created_at} /> },
              ]} />
              <CursorPager label={t('list.pages')} pages={pages} nextCursor={data.next_cursor} newestFirst />
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}

/** Subject over sender, compact: an SMS or WhatsApp message has only its sender (if one was named). */
function WhatItWas(props: { message: MessageSummary }) {
  const { t } = useTranslation('messages');
  const { subject, sender } = props.message;
  return (
    <>
      {subject === null ? null : <div>{subject}</div>}
      {sender === null ? null : <div className="small muted">{t('list.from', { sender })}</div>}
    </>
  );
}

/** The status, and a scheduled send's time under it. */
function StatusCell(props: { message: MessageSummary }) {
  const { t } = useTranslation('messages');
  const { status, send_at: sendAt } = props.message;
  return (
    <>
      <StatusBadge status={status} kind="message" />
      {sendAt === undefined || status !== 'scheduled' ? null : <div className="small muted">{t('list.sendsAt')} <Time iso={sendAt} /></div>}
    </>
  );
}

function CampaignCell(props: { message: MessageSummary }) {
  const { campaign, tag } = props.message;
  return (
    <>
      {campaign === null ? null : <div><Link to={`/campaigns/${campaign.id}`}>{campaign.name}</Link></div>}
      {tag === null ? null : <div className="small muted"><code>{tag}</code></div>}
    </>
  );
}

function FilterForm(props: { initial: MessageFilter; onApply: (filter: Record<string, string>) => void }) {
  const { t } = useTranslation('messages');
  const [draft, setDraft] = useState<MessageFilter>(props.initial);
  const campaigns = useQuery(campaignsQuery(undefined));
  const set = (key: keyof MessageFilter) => (event: { target: { value: string } }) => setDraft({ ...draft, [key]: event.target.value });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    props.onApply(Object.fromEntries(Object.entries(draft).map(([key, value]) => [key, value.trim()])));
  };
  return (
    <form onSubmit={submit} className="filters" role="search" aria-label={t('filter.label')}>
      <TextField label={t('filter.recipient')} value={draft.recipient_prefix} onChange={set('recipient_prefix')} aria-describedby="message-search-bounds" />
      <TextField label={t('filter.subject')} value={draft.subject} onChange={set('subject')} aria-describedby="message-search-bounds" />
      <SelectField label={t('filter.status')} value={draft.status} onChange={set('status')}>
        <option value="">{t('filter.any')}</option>
        {MESSAGE_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <SelectField label={t('filter.channel')} value={draft.channel} onChange={set('channel')}>
        <option value="">{t('filter.any')}</option>
        {CHANNELS.map((c) => <option key={c} value={c}>{channelName(c)}</option>)}
      </SelectField>
      <SelectField label={t('filter.campaign')} value={draft.campaign_id} onChange={set('campaign_id')}>
        <option value="">{t('filter.any')}</option>
        {(campaigns.data?.campaigns ?? []).map((c) => <option key={c.campaign_id} value={c.campaign_id}>{c.name}</option>)}
      </SelectField>
      <TextField label={t('filter.tag')} value={draft.tag} onChange={set('tag')} />
      <TextField label={t('filter.metadataKey')} value={draft.metadata_key} onChange={set('metadata_key')} />
      <TextField label={t('filter.metadataValue')} value={draft.metadata_value} onChange={set('metadata_value')} />
      <TextField label={t('filter.since')} type="date" value={draft.since} onChange={set('since')} />
      <TextField label={t('filter.until')} type="date" value={draft.until} onChange={set('until')} />
      <div className="filter-actions"><button type="submit" className="button">{t('filter.apply')}</button></div>
      <p className="hint search-bounds" id="message-search-bounds">{t('filter.recipientHint')}. {t('filter.searchHint', { days: SEARCH_WINDOW_DAYS })}.</p>
    </form>
  );
}
