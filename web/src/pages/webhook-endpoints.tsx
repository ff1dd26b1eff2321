import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { EVENT_TYPES } from '@herald/domain/event-catalogue.ts';
import type { EventType } from '../api/types.ts';
import { createEndpoint, endpointsQuery, webhookKeys } from '../api/webhooks.ts';
import { DataTable } from '../components/data-table.tsx';
import { CheckboxGroup, TextField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';

/** The account's endpoints (the first one is the form above), each opening its own page, and a form to add one. */
export function EndpointsSection(props: { canWrite: boolean }) {
  const { t } = useTranslation('messages');
  const endpoints = useQuery(endpointsQuery);
  return (
    <Section title={t('endpoints.title')}>
      <p className="hint">{t('endpoints.intro')}</p>
      <QueryState query={endpoints} isEmpty={(d) => d.data.length === 0} empty={<Empty title={t('endpoints.none')}>{t('endpoints.noneHint')}</Empty>}>
        {(data) => (
          <DataTable rows={data.data} rowKey={(e) => e.id} columns={[
            { header: t('endpoints.url'), cell: (e) => <><Link to={`/webhooks/endpoints/${e.id}`}>{e.url}</Link>{e.first ? <div className="small muted">{t('endpoints.first')}</div> : null}</> },
            { header: t('endpoints.descriptionColumn'), cell: (e) => e.description ?? '' },
            { header: t('endpoints.eventTypes'), cell: (e) => (e.event_filter === null ? t('endpoints.allTypes') : e.event_filter.join(', ')) },
            { header: t('endpoints.state'), cell: (e) => <StatusBadge status={e.enabled ? 'active' : 'inactive'} /> },
          ]} />
        )}
      </QueryState>
      {props.canWrite ? <AddEndpoint /> : null}
    </Section>
  );
}

function AddEndpoint() {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventType[]>([...EVENT_TYPES]);
  const add = useMutation({
    mutationFn: () => createEndpoint({
      url: url.trim(), description: description.trim() === '' ? null : description.trim(), event_types: events.length === EVENT_TYPES.length ? null : events,
    }),
    onSuccess: () => {
      setUrl('');
      setDescription('');
      setEvents([...EVENT_TYPES]);
      void client.invalidateQueries({ queryKey: webhookKeys.endpoints });
      void client.invalidateQueries({ queryKey: webhookKeys.settings });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-label={t('endpoints.add')}>
      <TextField label={t('endpoints.newUrl')} type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder={t('webhooks.urlPlaceholder')} hint={t('endpoints.newUrlHint')} />
      <TextField label={t('endpoints.description')} value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} />
      <CheckboxGroup legend={t('endpoints.newEventTypes')} options={EVENT_TYPES.map((type) => ({ value: type, label: type }))} value={events} onChange={setEvents} hint={t('webhooks.allChecked')} />
      {add.isError ? <ErrorNotice error={add.error} /> : null}
      {add.isSuccess ? <p className="notice" role="status">{t('endpoints.added')}</p> : null}
      <button type="submit" className="button" disabled={add.isPending || url.trim() === '' || events.length === 0}>{t('endpoints.add')}</button>
    </form>
  );
}
