import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
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
import { ExportContacts } from './lists-export.tsx';
import './campaigns.css';

export default function ListsPage() {
  const session = useSession();
  const role = session.data?.user.role ?? 'viewer';
  const lists = useQuery(listsQuery);
  const { t } = useTranslation('audience');
  return (
    <Page title={t('lists.title')} description={t('lists.description')}>
      {allows(role, 'write') ? <CreateList /> : <p className="notice">{t('lists.readOnly', { role })}</p>}
      <Section title={t('lists.yours')} actions={<ExportContacts listId={undefined} />}>
        <QueryState query={lists} isEmpty={(d) => d.lists.length === 0}
          empty={<Empty title={t('lists.none')}>{allows(role, 'write') ? <p>{t('lists.noneHint')}</p> : null}</Empty>}>
          {(data) => (
            <DataTable rows={data.lists} rowKey={(l) => l.list_id} columns={[
              { header: t('lists.column.list'), cell: (l) => <><Link to={`/lists/${l.list_id}`}>{l.name}</Link>{l.description === null ? null : <div className="muted small">{l.description}</div>}</> },
              { header: t('lists.column.optin'), cell: (l) => t(`optin.${l.optin}`) },
              { header: t('status.confirmed'), num: true, cell: (l) => formatCount(l.subscribers.confirmed) },
              { header: t('status.unconfirmed'), num: true, cell: (l) => formatCount(l.subscribers.unconfirmed) },
              { header: t('status.unsubscribed'), num: true, cell: (l) => formatCount(l.subscribers.unsubscribed) },
              { header: t('lists.column.created'), cell: (l) => <Time iso={l.created_at} /> },
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
  const { t } = useTranslation('audience');
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
    <Section title={t('find.title')}>
      <form className="inline-form" role="search" aria-label={t('find.region')} onSubmit={submit}>
        <TextField label={t('find.address')} type="search" value={email} onChange={(e) => { setEmail(e.target.value); find.reset(); }} placeholder={t('find.placeholder')} />
        <button type="submit" className="button secondary" disabled={find.isPending || email.trim() === ''}>{t('find.submit')}</button>
      </form>
      {find.isError ? <ErrorNotice error={find.error} /> : null}
      {find.isSuccess && find.data.contacts.length === 0 ? <p role="status">{t('find.none', { email: email.trim() })}</p> : null}
    </Section>
  );
}

function CreateList() {
  const { t } = useTranslation('audience');
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
  const nameError = name.trim() === '' ? t('create.nameMissing') : undefined;
  const fromError = optin === 'double' && (fromEmail.trim() === '' || fromName.trim() === '') ? t('create.fromMissing') : undefined;
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
    <Section title={t('create.title')}>
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label={t('create.name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} error={touched ? nameError : undefined} placeholder={t('create.namePlaceholder')} />
        <SelectField label={t('lists.column.optin')} value={optin} onChange={(e) => setOptin(e.target.value === 'double' ? 'double' : 'single')}
          hint={optin === 'single' ? t('create.singleHint') : t('create.doubleHint')}>
          <option value="single">{t('optin.single')}</option>
          <option value="double">{t('optin.double')}</option>
        </SelectField>
        <div className="span-2">
          <TextArea label={t('create.description')} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1000} />
        </div>
        {optin === 'double' ? (
          <>
            <TextField label={t('create.fromEmail')} type="email" value={fromEmail} onChange={(e) => setFromEmail(e.target.value)}
              hint={t('create.fromEmailHint')} error={touched ? fromError : undefined} />
            <TextField label={t('create.fromName')} value={fromName} onChange={(e) => setFromName(e.target.value)} />
          </>
        ) : null}
        {create.isError ? <div className="span-2"><ErrorNotice error={create.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={create.isPending}>{t('create.submit')}</button></div>
      </form>
    </Section>
  );
}
