import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { EVENT_TYPES } from '@herald/domain/event-catalogue.ts';
import { allows, useSession } from '../api/session.ts';
import type { EventType, WebhookSettingsView } from '../api/types.ts';
import { rotateWebhookSecret, saveWebhookSettings, webhookKeys, webhookSettingsQuery } from '../api/webhooks.ts';
import { SecretPanel } from './webhook-secret.tsx';
import { CheckboxGroup, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { DeliveryLog } from './webhook-delivery-log.tsx';
import { EndpointsSection } from './webhook-endpoints.tsx';

export default function WebhooksPage() {
  const { t } = useTranslation('messages');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const settings = useQuery(webhookSettingsQuery);
  return (
    <Page title={t('webhooks.title')} description={t('webhooks.description')}>
      <QueryState query={settings}>
        {(data) => (
          <>
            <SettingsForm settings={data} canWrite={canWrite} />
            {data.secret === null ? null : <SecretPanel secret={data.secret} canWrite={canWrite} rotate={rotateWebhookSecret} rotated={webhookKeys.settings} />}
          </>
        )}
      </QueryState>
      <DeliveryLog canWrite={canWrite} hasUrl={settings.data?.url !== null && settings.data?.url !== undefined} />
      <EndpointsSection canWrite={canWrite} />
    </Page>
  );
}

function SettingsForm(props: { settings: WebhookSettingsView; canWrite: boolean }) {
  const { t } = useTranslation('messages');
  const client = useQueryClient();
  const [url, setUrl] = useState(props.settings.url ?? '');
  const [events, setEvents] = useState<EventType[]>([...props.settings.events]);
  useEffect(() => {
    setUrl(props.settings.url ?? '');
    setEvents([...props.settings.events]);
  }, [props.settings]);
  const save = useMutation({
    mutationFn: () => saveWebhookSettings({ url: url.trim() === '' ? null : url.trim(), events: events.length === EVENT_TYPES.length ? null : events }),
    onSuccess: (saved) => client.setQueryData(webhookKeys.settings, saved),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Section title={t('webhooks.endpoint')}>
      <form onSubmit={submit} noValidate>
        <TextField label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder={t('webhooks.urlPlaceholder')}
          hint={t('webhooks.urlHint')} readOnly={!props.canWrite} />
        <CheckboxGroup legend={t('webhooks.eventTypes')} options={EVENT_TYPES.map((type) => ({ value: type, label: type }))} value={events} onChange={setEvents} disabled={!props.canWrite}
          hint={<>{t('webhooks.allChecked')} <button type="button" className="link-button" disabled={!props.canWrite} onClick={() => setEvents([...EVENT_TYPES])}>{t('webhooks.checkAll')}</button></>} />
        {events.length === 0 ? <p className="field-error">{t('webhooks.chooseOne')}</p> : null}
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        {save.isSuccess ? <p className="notice" role="status">{t('webhooks.saved')}</p> : null}
        {props.canWrite ? <button type="submit" className="button" disabled={save.isPending || events.length === 0}>{t('webhooks.save')}</button> : null}
      </form>
    </Section>
  );
}
