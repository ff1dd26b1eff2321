import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
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
import { ExportContacts } from './lists-export.tsx';
import { ImportContacts } from './lists-import.tsx';

import './campaigns.css';

/** Where a list's page leads back to. */
const LISTS_PATH = '/lists';
/** The placeholder a confirmation template places its link with, as written. */
const CONFIRM_PLACEHOLDER = '{{confirm_url}}';

/** One list: its subscribers per status, its contacts (by address, a page at a time), import and settings. */
export default function ListMembersPage() {
  const listId = useParams().listId ?? '';
  const list = useQuery(listQuery(listId));
  const { t } = useTranslation('audience');
  return (
    <RecordPage query={list} noun={t('members.noun')} id={listId} back={LISTS_PATH} backLabel={t('members.back')}>
      {(found) => <ListPage key={found.list_id} list={found} />}
    </RecordPage>
  );
}

function ListPage(props: { list: ListView }) {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const { list } = props;
  const { t } = useTranslation('audience');
  const total = list.subscribers.confirmed + list.subscribers.unconfirmed + list.subscribers.unsubscribed;
  return (
    <Page title={list.name} description={<Link to="/lists">← {t('members.back')}</Link>}>
      <Section title={t('members.subscribers')}>
        <dl className="stats">
          <div className="stat"><dt>{t('status.confirmed')}</dt><dd>{formatCount(list.subscribers.confirmed)}<span className="stat-note">{t('members.confirmedNote')}</span></dd></div>
          <div className="stat"><dt>{t('status.unconfirmed')}</dt><dd>{formatCount(list.subscribers.unconfirmed)}<span className="stat-note">{t('members.unconfirmedNote')}</span></dd></div>
          <div className="stat"><dt>{t('status.unsubscribed')}</dt><dd>{formatCount(list.subscribers.unsubscribed)}<span className="stat-note">{t('members.unsubscribedNote')}</span></dd></div>
        </dl>
      </Section>
      <Contacts listId={list.list_id} total={total} />
      {canWrite ? (
        <>
          <ImportContacts listId={list.list_id} listName={list.name} />
          <AddContact listId={list.list_id} />
          <ListSettings list={list} />
        </>
      ) : <p className="notice">{t('members.readOnly')}</p>}
    </Page>
  );
}

function Contacts(props: { listId: string; total: number }) {
  const { t } = useTranslation('audience');
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
    <Section title={t('members.contacts')} actions={props.total > 0 ? <ExportContacts listId={props.listId} /> : undefined}>
      <p className="hint" role="status">{t('members.count', { count: props.total, formatted: formatCount(props.total) })}</p>
      <form className="inline-form" role="search" aria-label={t('members.searchRegion')} onSubmit={submit}>
        <TextField label={t('members.findByAddress')} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder={t('find.placeholder')} />
        <button type="submit" className="button secondary">{t('find.submit')}</button>
      </form>
      <QueryState query={contacts} isEmpty={(d) => d.contacts.length === 0 && cursor === undefined}
        empty={<Empty title={email === '' ? t('members.none') : t('members.noneWith', { email })}>
          {email === '' ? <p>{t('members.noneHint')}</p> : <button type="button" className="button secondary" onClick={() => { setSearch(''); setEmail(''); }}>{t('members.showAll')}</button>}
        </Empty>}>
        {(data) => (
          <>
            <DataTable rows={data.contacts} rowKey={(c) => c.contact_id} loading={contacts.isPlaceholderData} columns={[
              { header: t('column.address'), cell: (c) => <Link to={`/contacts/${c.contact_id}`}>{c.email}</Link> },
              { header: t('column.name'), cell: (c) => c.name ?? <span className="muted">—</span> },
              { header: t('members.onThisList'), cell: (c) => <StatusBadge status={c.lists.find((l) => l.list_id === props.listId)?.status ?? 'not subscribed'} /> },
              { header: t('column.added'), cell: (c) => <Time iso={c.created_at} /> },
            ]} />
            <CursorPager label={t('members.pages')} pages={pages} nextCursor={data.next_cursor} />
          </>
        )}
      </QueryState>
    </Section>
  );
}

function AddContact(props: { listId: string }) {
  const { t } = useTranslation('audience');
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
    <Section title={t('add.title')}>
      <form className="inline-form" onSubmit={submit} noValidate>
        <TextField label={t('find.address')} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        <TextField label={t('add.name')} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        <button type="submit" className="button" disabled={add.isPending || email.trim() === ''}>{t('add.submit')}</button>
      </form>
      {add.isError ? <ErrorNotice error={add.error} /> : null}
      {add.isSuccess ? <p className="notice" role="status">{t('add.done', { email: add.data.email, status: t(`statusWord.${add.data.lists.find((l) => l.list_id === props.listId)?.status ?? 'confirmed'}`) })}</p> : null}
    </Section>
  );
}

function ListSettings(props: { list: ListView }) {
  const { t } = useTranslation('audience');
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
    <Section title={t('settings.title')}>
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label={t('settings.name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
        <SelectField label={t('settings.optin')} value={optin} onChange={(e) => setOptin(e.target.value === 'double' ? 'double' : 'single')} hint={t('settings.optinHint')}>
          <option value="single">{t('optin.single')}</option>
          <option value="double">{t('optin.double')}</option>
        </SelectField>
        <div className="span-2"><TextArea label={t('settings.description')} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1000} /></div>
        <TextField label={t('settings.fromEmail')} type="email" value={fromEmail} onChange={(e) => setFromEmail(e.target.value)} hint={t('settings.fromEmailHint')} />
        <TextField label={t('settings.fromName')} value={fromName} onChange={(e) => setFromName(e.target.value)} />
        <div className="span-2">
          <SelectField label={t('settings.confirmation')} value={templateId} onChange={(e) => setTemplateId(e.target.value)}
            hint={<>{t('settings.confirmationHintBefore')} <code>{CONFIRM_PLACEHOLDER}</code>{t('settings.confirmationHintAfter', { placeholders: '{{list_name}}, {{email}}, {{name}}' })}</>}>
            <option value="">{t('settings.heraldText')}</option>
            {(templates.data?.templates ?? []).map((template) => <option key={template.template_id} value={template.template_id}>{template.name}</option>)}
            {templateId !== '' && templates.data?.templates.every((template) => template.template_id !== templateId) === true ? <option value={templateId}>{t('settings.templateGone')}</option> : null}
          </SelectField>
        </div>
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {save.isSuccess ? <p className="notice span-2" role="status">{t('settings.saved')}</p> : null}
        <div className="span-2 row">
          <button type="submit" className="button" disabled={save.isPending || name.trim() === ''}>{t('settings.save')}</button>
          <button type="button" className="button danger" onClick={() => setDeleting(true)}>{t('settings.delete')}</button>
        </div>
      </form>
      <ConfirmDialog open={deleting} onClose={() => { setDeleting(false); remove.reset(); }} title={t('settings.deleteTitle')} confirmLabel={t('settings.delete')} danger
        busy={remove.isPending} onConfirm={() => remove.mutate()}>
        <p>{t('settings.deleteBody', { name: list.name })}</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}
