import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { addContact, contactKeys, fetchContacts } from '../api/contacts.ts';
import { deleteList, listKeys, listQuery, updateList } from '../api/lists.ts';
import { allows, useSession } from '../api/session.ts';
import { templatesQuery } from '../api/templates.ts';
import type { ListPatch, ListView } from '../api/types.ts';
import { DataTable } from '../components/data-table.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { formatCount } from '../lib/format.ts';
import { RecordPage } from './campaign-missing.tsx';
import { CursorPager, useCursorPages } from '../components/cursor-pager.tsx';
import { ImportContacts } from './lists-import.tsx';

import './campaigns.css';

/** One list: its subscribers per status, its contacts (by address, a page at a time), import and settings. */
export default function ListMembersPage() {
  const listId = useParams().listId ?? '';
  const list = useQuery(listQuery(listId));
  return (
    <RecordPage query={list} noun="list" id={listId} back="/lists" backLabel="All lists">
      {(found) => <ListPage key={found.list_id} list={found} />}
    </RecordPage>
  );
}

function ListPage(props: { list: ListView }) {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const { list } = props;
  return (
    <Page title={list.name} description={<Link to="/lists">← All lists</Link>}>
      <Section title="Subscribers">
        <dl className="stats">
          <div className="stat"><dt>Confirmed</dt><dd>{formatCount(list.subscribers.confirmed)}<span className="stat-note">campaigns go to these</span></dd></div>
          <div className="stat"><dt>Unconfirmed</dt><dd>{formatCount(list.subscribers.unconfirmed)}<span className="stat-note">waiting for their link</span></dd></div>
          <div className="stat"><dt>Unsubscribed</dt><dd>{formatCount(list.subscribers.unsubscribed)}<span className="stat-note">never signed up again by an import</span></dd></div>
        </dl>
      </Section>
      <Contacts listId={list.list_id} />
      {canWrite ? (
        <>
          <ImportContacts listId={list.list_id} listName={list.name} />
          <AddContact listId={list.list_id} />
          <ListSettings list={list} />
        </>
      ) : <p className="notice">Your role can see this list but not change it.</p>}
    </Page>
  );
}

function Contacts(props: { listId: string }) {
  const [search, setSearch] = useState('');
  const [email, setEmail] = useState('');
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const contacts = useQuery({
    queryKey: contactKeys.page(props.listId, email, cursor),
    queryFn: () => fetchContacts(props.listId, email, cursor),
    placeholderData: (previous) => previous,
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    pages.reset();
    setEmail(search.trim());
  };
  return (
    <Section title="Contacts">
      <form className="inline-form" role="search" aria-label="Contacts of this list" onSubmit={submit}>
        <TextField label="Find by address" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="the whole address, any case" />
        <button type="submit" className="button secondary">Find</button>
      </form>
      <QueryState query={contacts} isEmpty={(d) => d.contacts.length === 0 && cursor === undefined}
        empty={<Empty title={email === '' ? 'No contacts on this list yet' : `No contact ${email} on this list`}>
          {email === '' ? <p>Import a CSV file or add a contact below.</p> : <button type="button" className="button secondary" onClick={() => { setSearch(''); setEmail(''); }}>Show every contact</button>}
        </Empty>}>
        {(data) => (
          <>
            <DataTable rows={data.contacts} rowKey={(c) => c.contact_id} loading={contacts.isPlaceholderData} columns={[
              { header: 'Address', cell: (c) => <Link to={`/contacts/${c.contact_id}`}>{c.email}</Link> },
              { header: 'Name', cell: (c) => c.name ?? <span className="muted">—</span> },
              { header: 'On this list', cell: (c) => <StatusBadge status={c.lists.find((l) => l.list_id === props.listId)?.status ?? 'not subscribed'} /> },
              { header: 'Added', cell: (c) => <Time iso={c.created_at} /> },
            ]} />
            <CursorPager label="Contact pages" pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryState>
    </Section>
  );
}

function AddContact(props: { listId: string }) {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: () => addContact({ email: email.trim(), ...(name.trim() === '' ? {} : { name: name.trim() }), lists: [props.listId] }),
    onSuccess: () => {
      setEmail('');
      setName('');
      void client.invalidateQueries({ queryKey: contactKeys.all });
      void client.invalidateQueries({ queryKey: listKeys.detail(props.listId) });
      void client.invalidateQueries({ queryKey: listKeys.all });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (email.trim() !== '') add.mutate();
  };
  return (
    <Section title="Add a contact">
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextField label="Address" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        <TextField label="Name (optional)" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        <button type="submit" className="button" disabled={add.isPending || email.trim() === ''}>Add to the list</button>
      </form>
      {add.isError ? <ErrorNotice error={add.error} /> : null}
      {add.isSuccess ? <p className="notice" role="status">{add.data.email} is on the list ({add.data.lists.find((l) => l.list_id === props.listId)?.status}).</p> : null}
    </Section>
  );
}

function ListSettings(props: { list: ListView }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const { list } = props;
  const [name, setName] = useState(list.name);
  const [optin, setOptin] = useState(list.optin);
  const [description, setDescription] = useState(list.description ?? '');
  const [fromEmail, setFromEmail] = useState(list.from?.email ?? '');
  const [fromName, setFromName] = useState(list.from?.name ?? '');
  const [templateId, setTemplateId] = useState(list.confirmation_template_id ?? '');
  const [deleting, setDeleting] = useState(false);
  const templates = useQuery(templatesQuery);
  const save = useMutation({
    mutationFn: (body: ListPatch) => updateList(list.list_id, body),
    onSuccess: (saved) => {
      client.setQueryData(listKeys.detail(saved.list_id), saved);
      void client.invalidateQueries({ queryKey: listKeys.all });
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteList(list.list_id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: listKeys.all });
      navigate('/lists', { replace: true });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const hasFrom = fromEmail.trim() !== '' || fromName.trim() !== '';
    save.mutate({
      name: name.trim(), optin, description: description.trim() === '' ? null : description.trim(),
      from: hasFrom ? { email: fromEmail.trim(), name: fromName.trim() } : null,
      confirmation_template_id: templateId === '' ? null : templateId,
    });
  };
  return (
    <Section title="Settings">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label="List name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
        <SelectField label="List opt-in" value={optin} onChange={(e) => setOptin(e.target.value === 'double' ? 'double' : 'single')} hint="A change applies to subscriptions made afterwards.">
          <option value="single">single</option>
          <option value="double">double</option>
        </SelectField>
        <div className="span-2"><TextArea label="List description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1000} /></div>
        <TextField label="Sender address" type="email" value={fromEmail} onChange={(e) => setFromEmail(e.target.value)} hint="Sends the confirmation emails; a campaign editor offers it as the default sender." />
        <TextField label="Sender name" value={fromName} onChange={(e) => setFromName(e.target.value)} />
        <div className="span-2">
          <SelectField label="Confirmation email" value={templateId} onChange={(e) => setTemplateId(e.target.value)}
            hint={<>A double opt-in list sends it to each new subscriber. A template of yours must place <code>{'{{confirm_url}}'}</code>; it may use {'{{list_name}}'}, {'{{email}}'} and {'{{name}}'}.</>}>
            <option value="">herald's own text</option>
            {(templates.data?.templates ?? []).map((t) => <option key={t.template_id} value={t.template_id}>{t.name}</option>)}
            {templateId !== '' && templates.data?.templates.every((t) => t.template_id !== templateId) === true ? <option value={templateId}>a template no longer there (herald's text is used)</option> : null}
          </SelectField>
        </div>
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {save.isSuccess ? <p className="notice span-2" role="status">Saved.</p> : null}
        <div className="span-2 row">
          <button type="submit" className="button" disabled={save.isPending || name.trim() === ''}>Save list</button>
          <button type="button" className="button danger" onClick={() => setDeleting(true)}>Delete list</button>
        </div>
      </form>
      <ConfirmDialog open={deleting} onClose={() => { setDeleting(false); remove.reset(); }} title="Delete this list?" confirmLabel="Delete list" danger
        busy={remove.isPending} onConfirm={() => remove.mutate()}>
        <p>“{list.name}” goes with its subscriptions and their consent history. The contacts stay, with their other lists.</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}
