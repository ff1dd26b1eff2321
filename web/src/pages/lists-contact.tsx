import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { changeContactLists, contactKeys, contactQuery, deleteContact } from '../api/contacts.ts';
import { listKeys, listsQuery } from '../api/lists.ts';
import type { ContactView, ListView } from '../api/types.ts';
import { allows, useSession } from '../api/session.ts';
import { DataTable } from '../components/data-table.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { SelectField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { RecordPage } from './campaign-missing.tsx';
import './campaigns.css';

/** A contact: its attributes, its subscriptions with their consent status, and every change of consent with its source. */
export default function ContactPage() {
  const contactId = useParams().contactId ?? '';
  const contact = useQuery(contactQuery(contactId));
  return (
    <RecordPage query={contact} noun="contact" id={contactId} back="/lists" backLabel="Lists">
      {(found) => <ContactDetails contact={found} />}
    </RecordPage>
  );
}

function ContactDetails(props: { contact: ContactView }) {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const lists = useQuery(listsQuery);
  const names = new Map((lists.data?.lists ?? []).map((l) => [l.list_id, l.name]));
  const listName = (id: string) => names.get(id) ?? id;
  const { contact } = props;
  const attributes = Object.keys(contact.attributes).length === 0 ? undefined : JSON.stringify(contact.attributes, null, 2);
  return (
    <Page title={contact.email} description={<Link to="/lists">← Lists</Link>}>
      <Section title="Contact">
        <dl className="facts">
          <div><dt>Name</dt><dd>{contact.name ?? <span className="muted">—</span>}</dd></div>
          <div><dt>Added</dt><dd><Time iso={contact.created_at} /></dd></div>
          <div><dt>Changed</dt><dd><Time iso={contact.updated_at} /></dd></div>
          <div className="full"><dt>Attributes</dt><dd>{attributes === undefined ? <span className="muted">none</span> : <pre className="attributes" tabIndex={0}>{attributes}</pre>}</dd></div>
        </dl>
      </Section>
      <Subscriptions contact={contact} canWrite={canWrite} lists={lists.data?.lists ?? []} listName={listName} />
      <Section title="Consent history">
        {contact.consent.length === 0 ? <Empty title="No change of consent recorded" /> : (
          <DataTable rows={contact.consent} rowKey={(entry, index) => `${entry.at}-${index}`} columns={[
            { header: 'When', cell: (entry) => <Time iso={entry.at} /> },
            { header: 'List', cell: (entry) => listName(entry.list_id) },
            { header: 'Status', cell: (entry) => <StatusBadge status={entry.status} /> },
            { header: 'Source', cell: (entry) => entry.source },
            { header: 'Detail', cellClassName: 'small', cell: (entry) => Object.entries(entry.detail).map(([k, v]) => (
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
    <Section title="Lists">
      {contact.lists.length === 0 ? <Empty title="Not on any list" /> : (
        <DataTable rows={contact.lists} rowKey={(s) => s.list_id} columns={[
          { header: 'List', cell: (s) => <Link to={`/lists/${s.list_id}`}>{props.listName(s.list_id)}</Link> },
          { header: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
          props.canWrite && { header: 'Actions', hiddenHeader: true, cell: (s) => (s.status === 'unsubscribed' ? null : (
            <button type="button" className="button small secondary" onClick={() => setLeaving(s.list_id)} aria-label={`Unsubscribe from ${props.listName(s.list_id)}`}>Unsubscribe</button>
          )) },
        ]} />
      )}
      {props.canWrite && joinable.length > 0 ? (
        <form className="inline-form" onSubmit={join}>
          <SelectField label="Add to a list" value={joining} onChange={(e) => setJoining(e.target.value)}
            hint="By the list's opt-in: a double opt-in list sends a confirmation email (billed).">
            <option value="">choose a list</option>
            {joinable.map((l) => <option key={l.list_id} value={l.list_id}>{l.name}</option>)}
          </SelectField>
          <button type="submit" className="button secondary" disabled={joining === '' || change.isPending}>Add</button>
        </form>
      ) : null}
      {change.isError && leaving === undefined ? <ErrorNotice error={change.error} /> : null}
      <ConfirmDialog open={leaving !== undefined} onClose={() => { setLeaving(undefined); change.reset(); }} title="Unsubscribe this contact?"
        confirmLabel="Unsubscribe" danger busy={change.isPending} onConfirm={() => leaving !== undefined && change.mutate({ unsubscribe: [leaving] })}>
        <p>{contact.email} leaves “{leaving === undefined ? '' : props.listName(leaving)}”. The change is recorded with source <code>api</code>; imports never sign the address up again.</p>
        {change.isError ? <ErrorNotice error={change.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}

function EraseContact(props: { contact: ContactView }) {
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
    <Section title="Erase">
      <p>Erasing removes the person's data: the contact, its attributes, subscriptions and consent history. An address that unsubscribed joins the suppression list so that nothing signs it up again.</p>
      <button type="button" className="button danger" onClick={() => setConfirming(true)}>Erase contact</button>
      <ConfirmDialog open={confirming} onClose={() => { setConfirming(false); erase.reset(); }} title="Erase this contact?" confirmLabel="Erase" danger
        busy={erase.isPending} onConfirm={() => erase.mutate()}>
        <p>{props.contact.email} and everything herald holds about it as a contact go. Messages already sent stay in the log. This cannot be undone.</p>
        {erase.isError ? <ErrorNotice error={erase.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}
