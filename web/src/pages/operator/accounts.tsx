import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ACCOUNT_NAME_MAX } from '@herald/domain/text-limits.ts';
import { Link, useNavigate } from 'react-router';
import { fetchAccounts, openAccount, operatorKeys } from '../../api/operator/accounts.ts';
import { CursorPager, useCursorPages } from '../../components/cursor-pager.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { TextField } from '../../components/field.tsx';
import { Page, Section } from '../../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../../components/query-state.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { Time } from '../../components/time.tsx';
import { formatCount, formatMoney } from '../../lib/format.ts';

export default function OperatorAccountsPage() {
  const { t } = useTranslation('operator');
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const accounts = useQuery({
    queryKey: operatorKeys.accountPage(search, cursor),
    queryFn: () => fetchAccounts(search, cursor),
    placeholderData: (previous) => previous,
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setSearch(q.trim());
    pages.reset();
  };
  return (
    <Page title={t('accounts.title')} description={t('accounts.lede')}>
      <CreateAccount />
      <Section title={t('accounts.find')} id="find">
        <form onSubmit={submit} className="inline-form" role="search" aria-label={t('accounts.title')}>
          <TextField label={t('accounts.nameOrId')} type="search" value={q} onChange={(e) => setQ(e.target.value)} />
          <button type="submit" className="button">{t('accounts.search')}</button>
        </form>
        <QueryState query={accounts} isEmpty={(d) => d.accounts.length === 0 && cursor === undefined} empty={<Empty title={search === '' ? t('accounts.none') : t('accounts.noMatch')} />}>
          {(data) => (
            <>
              <DataTable rows={data.accounts} rowKey={(a) => a.id} columns={[
                { header: t('accounts.account'), cell: (a) => <><Link to={`/operator/accounts/${a.id}`}>{a.name}</Link><div className="muted mono small">{a.id}</div></> },
                { header: t('accounts.state'), cell: (a) => <StatusBadge status={a.active ? 'active' : 'inactive'} /> },
                { header: t('accounts.messagesLeft'), num: true, cell: (a) => formatCount(a.messagesLeft) },
                { header: t('accounts.balance'), num: true, cell: (a) => formatMoney(a.balance) },
                { header: t('accounts.opened'), cell: (a) => <Time iso={a.createdAt} /> },
              ]} />
              <CursorPager label={t('accounts.pages')} pages={pages} nextCursor={data.next_cursor} />
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}

function CreateAccount() {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [messages, setMessages] = useState('1000');
  const create = useMutation({
    mutationFn: () => openAccount(name.trim(), Number(messages)),
    onSuccess: (created) => {
      void client.invalidateQueries({ queryKey: operatorKeys.accounts });
      navigate(`/operator/accounts/${created.account.id}`);
    },
  });
  const messagesError = /^[0-9]{1,12}$/.test(messages) ? undefined : t('accounts.messagesInvalid');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (name.trim() !== '' && messagesError === undefined) create.mutate();
  };
  return (
    <Section title={t('accounts.open')} id="open">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label={t('accounts.name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={ACCOUNT_NAME_MAX}
          hint={t('accounts.nameLimit', { used: name.length, max: ACCOUNT_NAME_MAX })} />
        <TextField label={t('accounts.startMessages')} inputMode="numeric" value={messages} onChange={(e) => setMessages(e.target.value)} error={messagesError} />
        {create.isError ? <div className="span-2"><ErrorNotice error={create.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={create.isPending || name.trim() === ''}>{t('accounts.openSubmit')}</button></div>
      </form>
    </Section>
  );
}
