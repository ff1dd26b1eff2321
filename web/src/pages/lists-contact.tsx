import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { changeContactLists, contactKeys, contactQuery, deleteContact, updateContact } from '../api/contacts.ts';
import { listKeys, listsQuery } from '../api/lists.ts';
import type { ContactView, ListView } from '../api/types.ts';
import { allows, useSession } from '../api/session.ts';
import { DataTable } from '../components/data-table.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { RecordPage } from './campaign-missing.tsx';
import './campaigns.css';

/** Where a contact's page leads back to. */
const LISTS_PATH = '/lists';

/** A contact: its attributes, its subscriptions with their consent status, and every change of consent with its source. */
export default function ContactPage() {
  const contactId = useParams().contactId ?? '';
  const contact = useQuery(contactQuery(contactId));
  const { t } = useTranslation('audience');
  return (
    <RecordPage query={contact} noun={t('contact.noun')} id={contactId} back={LISTS_PATH} backLabel={t('lists.title')}>
      {(found) => <ContactDetails contact={found} />}
    </RecordPage>
  );
}

function ContactDetails(props: { contact: ContactView }) {
  const { t } = useTranslation('audience');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const lists = useQuery(listsQuery);
  const names = new Map((lists.data?.lists ?? []).map((l) => [l.list_id, l.name]));
  const listName = (id: string) => names.get(id) ?? id;
  const { contact } = props;
  const attributes = Object.keys(contact.attributes).length === 0 ? undefined : JSON.stringify(contact.attributes, null, 2);
  return (
    <Page title={contact.email} description={<Link to="/lists">← {t('lists.title')}</Link>}>
      <Section title={t('contact.title')}>
        <dl className="facts">
          <div><dt>{t('column.name')}</dt><dd>{contact.name ?? <span className="muted">—</span>}</dd></div>
          <div><dt>{t('column.added')}</dt><dd><Time iso={contact.created_at} /></dd></div>
          <div><dt>{t('contact.changed')}</dt><dd><Time iso={contact.updated_at} /></dd></div>
          <div className="full"><dt>{t('contact.attributes')}</dt><dd>{attributes === undefined ? <span className="muted">{t('contact.noAttributes')}</span> : <pre className="attributes" tabIndex={0}>{attributes}</pre>}</dd></div>
        </dl>
      </Section>
      {canWrite ? <EditContact contact={contact} /> : null}
      <Subscriptions contact={contact} canWrite={canWrite} lists={lists.data?.lists ?? []} listName={listName} />
      <Section title={t('contact.consent')}>
        {contact.consent.length === 0 ? <Empty title={t('contact.noConsent')} /> : (
          <DataTable rows={contact.consent} rowKey={(entry, index) => `${entry.at}-${index}`} columns={[
            { header: t('contact.when'), cell: (entry) => <Time iso={entry.at} /> },
            { header: t('lists.column.list'), cell: (entry) => listName(entry.list_id) },
            { header: t('contact.status'), cell: (entry) => <StatusBadge status={entry.status} /> },
            { header: t('contact.source'), cell: (entry) => entry.source },
            { header: t('contact.detail'), cellClassName: 'small', cell: (entry) => Object.entries(entry.detail).map(([k, v]) => (
              <div key={k}><span className="muted">{k}</span> {k === 'msgid' ? <Link to={`/messages/${v}`} className="mono">{v}</Link> : <span className="mono break">{v}</span>}</div>
            )) },
          ]} />
        )}
      </Section>
      {canWrite ? <EraseContact contact={contact} /> : null}
    </Page>
  );
}

function Subscriptions(props: { contact: ContactView; canWrite: boolean; lists: readonly ListView[]; listName: (id: string) => string }) {
  const { t } = useTranslation('audience');
  const client = useQueryClient();
  const { contact } = props;
  const [leaving, setLeaving] = useState<string | undefined>();
  const [joining, setJoining] = useState('');
  const change = useMutation({
    mutationFn: (body: { lists: string[] } | { unsubscribe: string[] }) => changeContactLists(contact.contact_id, body),
    onSuccess: (saved) => {
      setLeaving(undefined);
      setJoining('');
      client.setQueryData(contactKeys.detail(saved.contact_id), saved);
      void client.invalidateQueries({ queryKey: listKeys.all });
      void client.invalidateQueries({ queryKey: listKeys.details });
      void client.invalidateQueries({ queryKey: contactKeys.all });
    },
  });
  const joinable = props.lists.filter((l) => !contact.lists.some((s) => s.list_id === l.list_id && s.status !== 'unsubscribed'));
  const join = (event: FormEvent): void => {
    event.preventDefault();
    if (joining !== '') change.mutate({ lists: [joining] });
  };
  return (
    <Section title={t('contact.lists')}>
      {contact.lists.length === 0 ? <Empty title={t('contact.noLists')} /> : (
        <DataTable rows={contact.lists} rowKey={(s) => s.list_id} columns={[
          { header: t('lists.column.list'), cell: (s) => <Link to={`/lists/${s.list_id}`}>{props.listName(s.list_id)}</Link> },
          { header: t('contact.status'), cell: (s) => <StatusBadge status={s.status} /> },
          props.canWrite && { header: t('contact.actions'), hiddenHeader: true, cell: (s) => (s.status === 'unsubscribed' ? null : (
            <button type="button" className="button small secondary" onClick={() => setLeaving(s.list_id)} aria-label={t('contact.unsubscribeFrom', { list: props.listName(s.list_id) })}>{t('contact.unsubscribe')}</button>
          )) },
        ]} />
      )}
      {props.canWrite && joinable.length > 0 ? (
        <form className="inline-form" onSubmit={join}>
          <SelectField label={t('contact.join')} value={joining} onChange={(e) => setJoining(e.target.value)}
            hint={t('contact.joinHint')}>
            <option value="">{t('contact.chooseList')}</option>
            {joinable.map((l) => <option key={l.list_id} value={l.list_id}>{l.name}</option>)}
          </SelectField>
          <button type="submit" className="button secondary" disabled={joining === '' || change.isPending}>{t('contact.joinSubmit')}</button>
        </form>
      ) : null}
      {change.isError && leaving === undefined ? <ErrorNotice error={change.error} /> : null}
      <ConfirmDialog open={leaving !== undefined} onClose={() => { setLeaving(undefined); change.reset(); }} title={t('contact.unsubscribeTitle')}
        confirmLabel={t('contact.unsubscribe')} danger busy={change.isPending} onConfirm={() => leaving !== undefined && change.mutate({ unsubscribe: [leaving] })}>
        <p>{t('contact.unsubscribeBody', { email: contact.email, list: leaving === undefined ? '' : props.listName(leaving) })}</p>
        {change.isError ? <ErrorNotice error={change.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}

function EraseContact(props: { contact: ContactView }) {
  const { t } = useTranslation('audience');
  const client = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const erase = useMutation({
    mutationFn: () => deleteContact(props.contact.contact_id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: contactKeys.all });
      void client.invalidateQueries({ queryKey: listKeys.all });
      navigate('/lists', { replace: true });
    },
  });
  return (
    <Section title={t('erase.title')}>
      <p>{t('erase.explain')}</p>
      <button type="button" className="button danger" onClick={() => setConfirming(true)}>{t('erase.open')}</button>
      <ConfirmDialog open={confirming} onClose={() => { setConfirming(false); erase.reset(); }} title={t('erase.confirmTitle')} confirmLabel={t('erase.confirm')} danger
        busy={erase.isPending} onConfirm={() => erase.mutate()}>
        <p>{t('erase.confirmBody', { email: props.contact.email })}</p>
        {erase.isError ? <ErrorNotice error={erase.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}

/** Attributes as the JSON object text a person edits; blank is none. */
function attributesText(attributes: Record<string, unknown>): string {
  return Object.keys(attributes).length === 0 ? '' : JSON.stringify(attributes, null, 2);
}

/**
 * The contact's name and attributes. Consent is not edited here: a subscription changes only
 * by the person's own action or an unsubscribe (the Lists section), so no consent is forged.
 */
function EditContact(props: { contact: ContactView }) {
  const { t } = useTranslation('audience');
  const client = useQueryClient();
  const { contact } = props;
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(contact.name ?? '');
  const [attributes, setAttributes] = useState(attributesText(contact.attributes));
  const parsed = ((): { ok: true; value: Record<string, unknown> } | { ok: false } => {
    if (attributes.trim() === '') return { ok: true, value: {} };
    try {
      const value: unknown = JSON.parse(attributes);
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ok: true, value: value as Record<string, unknown> } : { ok: false };
    } catch {
      return { ok: false };
    }
  })();
  const save = useMutation({
    mutationFn: (next: Record<string, unknown>) => {
      // A merge patch: attributes no longer in the text are removed with null.
      const removed = Object.fromEntries(Object.keys(contact.attributes).filter((key) => !(key in next)).map((key) => [key, null]));
      return updateContact(contact.contact_id, { name: name.trim() === '' ? null : name.trim(), attributes: { ...removed, ...next } });
    },
    onSuccess: (saved) => {
      setEditing(false);
      client.setQueryData(contactKeys.detail(saved.contact_id), saved);
      void client.invalidateQueries({ queryKey: contactKeys.all });
    },
  });
  const start = (): void => {
    setName(contact.name ?? '');
    setAttributes(attributesText(contact.attributes));
    save.reset();
    setEditing(true);
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (parsed.ok) save.mutate(parsed.value);
  };
  return (
    <Section title={t('edit.title')}>
      {!editing ? (
        <p className="row">
          <button type="button" className="button secondary" onClick={start}>{t('edit.open')}</button>
          {save.isSuccess ? <span className="notice" role="status">{t('edit.saved')}</span> : null}
        </p>
      ) : (
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label={t('column.name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoComplete="off" />
        <div className="span-2">
          <TextArea label={t('contact.attributes')} className="code-input" rows={5} value={attributes} spellCheck={false}
            onChange={(e) => setAttributes(e.target.value)} hint={t('edit.attributesHint')} error={parsed.ok ? undefined : t('edit.attributesInvalid')} />
        </div>
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        <div className="span-2 row">
          <button type="submit" className="button" disabled={save.isPending || !parsed.ok}>{t('edit.submit')}</button>
          <button type="button" className="button secondary" onClick={() => setEditing(false)}>{t('edit.cancel')}</button>
        </div>
      </form>
      )}
    </Section>
  );
}
