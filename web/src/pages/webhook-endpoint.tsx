import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { EVENT_TYPES } from '@herald/domain/event-catalogue.ts';
import { allows, useSession } from '../api/session.ts';
import type { EventType, WebhookEndpointView } from '../api/types.ts';
import { deleteEndpoint, endpointQuery, rotateEndpointSecret, sendEndpointTest, updateEndpoint, webhookKeys } from '../api/webhooks.ts';
import { ConfirmDialog } from '../components/dialog.tsx';
import { CheckboxGroup, SelectField, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { DeliveryLog } from './webhook-delivery-log.tsx';
import { SecretPanel } from './webhook-secret.tsx';

const TEST_TYPES = ['webhook.test', ...EVENT_TYPES] as const;

/** One webhook endpoint: its URL, description, event types and state, its secret, a test event of a chosen type, and its delivery log. */
export default function WebhookEndpointPage() {
  const { t } = useTranslation('messages');
  const id = useParams().id ?? '';
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const endpoint = useQuery(endpointQuery(id));
  return (
    <Page title={t('endpoint.title')} description={<Link to="/webhooks">{t('endpoint.back')}</Link>}>
      <QueryState query={endpoint}>
        {(data) => (
          <>
            <EndpointForm endpoint={data} canWrite={canWrite} />
            <SecretPanel secret={data.secret} canWrite={canWrite} rotate={() => rotateEndpointSecret(data.id)} rotated={webhookKeys.endpoint(data.id)} />
            {canWrite ? <TestEvent endpointId={data.id} /> : null}
            <DeliveryLog canWrite={canWrite} hasUrl endpointId={data.id} />
            {canWrite ? <RemoveEndpoint endpoint={data} /> : null}
          </>
        )}
      </QueryState>
    </Page>
  );
}

function EndpointForm(props: { endpoint: WebhookEndpointView; canWrite: boolean }) {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const { endpoint } = props;
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const [events, setEvents] = useState<EventType[]>([...endpoint.event_types]);
  const [enabled, setEnabled] = useState(endpoint.enabled);
  useEffect(() => {
    setUrl(endpoint.url);
    setDescription(endpoint.description ?? '');
    setEvents([...endpoint.event_types]);
    setEnabled(endpoint.enabled);
  }, [endpoint]);
  const save = useMutation({
    mutationFn: () => updateEndpoint(endpoint.id, {
      url: url.trim(), description: description.trim() === '' ? null : description.trim(),
      event_types: events.length === EVENT_TYPES.length ? null : events, enabled,
    }),
    onSuccess: (saved) => {
      client.setQueryData(webhookKeys.endpoint(endpoint.id), saved);
      void client.invalidateQueries({ queryKey: webhookKeys.endpoints });
      void client.invalidateQueries({ queryKey: webhookKeys.settings });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Section title={t('endpoint.settings')}>
      {endpoint.disabled_at === null ? null : <p className="notice">{t('endpoint.disabledSince')} <Time iso={endpoint.disabled_at} />: {endpoint.disabled_reason}</p>}
      <form onSubmit={submit} noValidate>
        <TextField label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} readOnly={!props.canWrite} hint={t('endpoint.urlHint')} />
        <TextField label={t('endpoints.description')} value={description} maxLength={200} onChange={(e) => setDescription(e.target.value)} readOnly={!props.canWrite} />
        <CheckboxGroup legend={t('webhooks.eventTypes')} options={EVENT_TYPES.map((type) => ({ value: type, label: type }))} value={events} onChange={setEvents} disabled={!props.canWrite} hint={t('webhooks.allChecked')} />
        <label className="checkbox">
          <input type="checkbox" checked={enabled} disabled={!props.canWrite} onChange={(e) => setEnabled(e.target.checked)} />
          {t('endpoint.enabled')}
        </label>
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        {save.isSuccess ? <p className="notice" role="status">{t('webhooks.saved')}</p> : null}
        {props.canWrite ? <button type="submit" className="button" disabled={save.isPending || events.length === 0 || url.trim() === ''}>{t('webhooks.save')}</button> : null}
      </form>
    </Section>
  );
}

/** A test event of the chosen type to this endpoint only; it shows in the log below. */
function TestEvent(props: { endpointId: string }) {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const [type, setType] = useState<string>('webhook.test');
  const send = useMutation({
    mutationFn: () => sendEndpointTest(props.endpointId, type),
    onSuccess: () => void client.invalidateQueries({ queryKey: webhookKeys.deliveries }),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <Section title={t('endpoint.test')}>
      <form onSubmit={submit} className="inline-form" noValidate>
        <SelectField label={t('endpoint.testType')} value={type} onChange={(e) => setType(e.target.value)}>
          {TEST_TYPES.map((option) => <option key={option} value={option}>{option}</option>)}
        </SelectField>
        <button type="submit" className="button" disabled={send.isPending}>{t('deliveries.sendTest')}</button>
      </form>
      {send.isError ? <ErrorNotice error={send.error} /> : null}
      {send.isSuccess ? <p className="notice" role="status">{t('deliveries.testQueued', { id: send.data.id })}</p> : null}
    </Section>
  );
}

function RemoveEndpoint(props: { endpoint: WebhookEndpointView }) {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteEndpoint(props.endpoint.id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: webhookKeys.endpoints });
      void client.invalidateQueries({ queryKey: webhookKeys.settings });
      void navigate('/webhooks');
    },
  });
  return (
    <Section title={t('endpoint.remove')}>
      <p className="hint">{props.endpoint.first ? t('endpoint.removeFirstText') : t('endpoint.removeText')}</p>
      {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      <button type="button" className="button danger" onClick={() => setConfirming(true)}>{t('endpoint.remove')}</button>
      <ConfirmDialog open={confirming} onClose={() => setConfirming(false)} title={t('endpoint.removeTitle')} confirmLabel={t('endpoint.remove')} busy={remove.isPending} danger onConfirm={() => remove.mutate()}>
        <p>{props.endpoint.first ? t('endpoint.removeFirstText') : t('endpoint.removeText')}</p>
      </ConfirmDialog>
    </Section>
  );
}
