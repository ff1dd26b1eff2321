import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { findContact } from '../api/contacts.ts';
import { createList, listKeys, listsQuery } from '../api/lists.ts';
import type { ListCreate } from '../api/types.ts';
import { allows, useSession } from '../api/session.ts';
import { DataTable } from '../components/data-table.tsx';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';
import './campaigns.css';

export default function ListsPage() {
  const session = useSession();
  const role = session.data?.user.role ?? 'viewer';
  const lists = useQuery(listsQuery);
  return (
    <Page title="Lists" description="Mailing lists and their subscribers. Campaigns go to the confirmed ones; every change of consent is kept on the contact.">
      {allows(role, 'write') ? <CreateList /> : <p className="notice">Your role ({role}) can see the lists but not change them.</p>}
      <Section title="Your lists">
        <QueryState query={lists} isEmpty={(d) => d.lists.length === 0}
          empty={<Empty title="No lists yet">{allows(role, 'write') ? <p>Create one above, then import its contacts from a CSV file.</p> : null}</Empty>}>
          {(data) => (
            <DataTable rows={data.lists} rowKey={(l) => l.list_id} columns={[
              { header: 'List', cell: (l) => <><Link to={`/lists/${l.list_id}`}>{l.name}</Link>{l.description === null ? null : <div className="muted small">{l.description}</div>}</> },
              { header: 'Opt-in', cell: (l) => l.optin },
              { header: 'Confirmed', num: true, cell: (l) => formatCount(l.subscribers.confirmed) },
              { header: 'Unconfirmed', num: true, cell: (l) => formatCount(l.subscribers.unconfirmed) },
              { header: 'Unsubscribed', num: true, cell: (l) => formatCount(l.subscribers.unsubscribed) },
              { header: 'Created', cell: (l) => <Time iso={l.created_at} /> },
            ]} />
          )}
        </QueryState>
      </Section>
      <FindContact />
    </Page>
  );
}

/** A contact of any list (or none) by its address: its page, with its lists and consent. */
function FindContact() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const find = useMutation({
    mutationFn: () => findContact(email.trim()),
    onSuccess: (page) => {
      const found = page.contacts[0];
      if (found !== undefined) navigate(`/contacts/${found.contact_id}`);
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (email.trim() !== '') find.mutate();
  };
  return (
    <Section title="Find a contact">
      <form className="inline-form" role="search" aria-label="Contacts" onSubmit={submit}>
        <TextField label="Address" type="search" value={email} onChange={(e) => { setEmail(e.target.value); find.reset(); }} placeholder="the whole address, any case" />
        <button type="submit" className="button secondary" disabled={find.isPending || email.trim() === ''}>Find</button>
      </form>
      {find.isError ? <ErrorNotice error={find.error} /> : null}
      {find.isSuccess && find.data.contacts.length === 0 ? <p role="status">No contact of this account has the address {email.trim()}.</p> : null}
    </Section>
  );
}

function CreateList() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [optin, setOptin] = useState<'single' | 'double'>('single');
  const [description, setDescription] = useState('');
  const [fromEmail, setFromEmail] = useState('');
  const [fromName, setFromName] = useState('');
  const [touched, setTouched] = useState(false);
  const create = useMutation({
    mutationFn: (body: ListCreate) => createList(body),
    onSuccess: (list) => {
      void client.invalidateQueries({ queryKey: listKeys.all });
      navigate(`/lists/${list.list_id}`);
    },
  });
  const nameError = name.trim() === '' ? 'Give the list a name' : undefined;
  const fromError = optin === 'double' && (fromEmail.trim() === '' || fromName.trim() === '') ? 'A double opt-in list sends confirmation emails: give their sender' : undefined;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (nameError !== undefined || fromError !== undefined) return;
    create.mutate({
      name: name.trim(), optin,
      ...(description.trim() === '' ? {} : { description: description.trim() }),
      ...(optin === 'double' ? { from: { email: fromEmail.trim(), name: fromName.trim() } } : {}),
    });
  };
  return (
    <Section title="Create a list">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} error={touched ? nameError : undefined} placeholder="Newsletter" />
        <SelectField label="Opt-in" value={optin} onChange={(e) => setOptin(e.target.value === 'double' ? 'double' : 'single')}
          hint={optin === 'single' ? 'Joining confirms at once.' : 'Joining sends a confirmation email (billed); the contact confirms with its link.'}>
          <option value="single">single</option>
          <option value="double">double</option>
        </SelectField>
        <div className="span-2">
          <TextArea label="Description (optional)" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1000} />
        </div>
        {optin === 'double' ? (
          <>
            <TextField label="Confirmation sender address" type="email" value={fromEmail} onChange={(e) => setFromEmail(e.target.value)}
              hint="Of a verified sender domain." error={touched ? fromError : undefined} />
            <TextField label="Confirmation sender name" value={fromName} onChange={(e) => setFromName(e.target.value)} />
          </>
        ) : null}
        {create.isError ? <div className="span-2"><ErrorNotice error={create.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={create.isPending}>Create list</button></div>
      </form>
    </Section>
  );
}
