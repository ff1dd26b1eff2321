import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { fetchAccounts, openAccount, operatorKeys } from '../../api/operator/accounts.ts';
import { TextField } from '../../components/field.tsx';
import { Page, Section } from '../../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../../components/query-state.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { Time } from '../../components/time.tsx';
import { formatCount, formatMoney } from '../../lib/format.ts';

export default function OperatorAccountsPage() {
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const [trail, setTrail] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const accounts = useQuery({
    queryKey: operatorKeys.accountPage(search, cursor),
    queryFn: () => fetchAccounts(search, cursor),
    placeholderData: (previous) => previous,
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setSearch(q.trim());
    setCursor(undefined);
    setTrail([]);
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
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <thead><tr><th scope="col">Account</th><th scope="col">State</th><th scope="col" className="num">Messages left</th><th scope="col" className="num">Balance</th><th scope="col">Opened</th></tr></thead>
                  <tbody>
                    {data.accounts.map((a) => (
                      <tr key={a.id}>
                        <th scope="row"><Link to={`/operator/accounts/${a.id}`}>{a.name}</Link><div className="muted mono small">{a.id}</div></th>
                        <td><StatusBadge status={a.active ? 'active' : 'inactive'} /></td>
                        <td className="num">{formatCount(a.messagesLeft)}</td>
                        <td className="num">{formatMoney(a.balance)}</td>
                        <td><Time iso={a.createdAt} /></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav className="pager" aria-label="Account pages">
                <button type="button" className="button secondary" disabled={cursor === undefined} onClick={() => { setCursor(trail.at(-1)); setTrail(trail.slice(0, -1)); }}>← Previous</button>
                <button type="button" className="button secondary" disabled={data.next_cursor === null}
                  onClick={() => { if (data.next_cursor !== null) { setTrail(cursor === undefined ? [] : [...trail, cursor]); setCursor(data.next_cursor); } }}>Next →</button>
              </nav>
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
