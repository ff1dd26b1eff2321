import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
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
    <Page title="Accounts" description="Every account on this herald.">
      <CreateAccount />
      <Section title="Find an account">
        <form onSubmit={submit} className="inline-form" role="search" aria-label="Accounts">
          <TextField label="Name or id" type="search" value={q} onChange={(e) => setQ(e.target.value)} />
          <button type="submit" className="button">Search</button>
        </form>
        <QueryState query={accounts} isEmpty={(d) => d.accounts.length === 0 && cursor === undefined} empty={<Empty title={search === '' ? 'No accounts yet' : 'No account matches'} />}>
          {(data) => (
            <>
              <DataTable rows={data.accounts} rowKey={(a) => a.id} columns={[
                { header: 'Account', cell: (a) => <><Link to={`/operator/accounts/${a.id}`}>{a.name}</Link><div className="muted mono small">{a.id}</div></> },
                { header: 'State', cell: (a) => <StatusBadge status={a.active ? 'active' : 'inactive'} /> },
                { header: 'Messages left', num: true, cell: (a) => formatCount(a.messagesLeft) },
                { header: 'Balance', num: true, cell: (a) => formatMoney(a.balance) },
                { header: 'Opened', cell: (a) => <Time iso={a.createdAt} /> },
              ]} />
              <CursorPager label="Account pages" pages={pages} nextCursor={data.next_cursor} />
            </>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}

function CreateAccount() {
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
  const messagesError = /^[0-9]{1,12}$/.test(messages) ? undefined : 'A whole number, 0 or more';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (name.trim() !== '' && messagesError === undefined) create.mutate();
  };
  return (
    <Section title="Open an account">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} />
        <TextField label="Messages to start with" inputMode="numeric" value={messages} onChange={(e) => setMessages(e.target.value)} error={messagesError} />
        {create.isError ? <div className="span-2"><ErrorNotice error={create.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={create.isPending || name.trim() === ''}>Open account</button></div>
      </form>
    </Section>
  );
}
