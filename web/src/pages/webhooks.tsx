import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { EVENT_TYPES } from '@herald/domain/event-catalogue.ts';
import { allows, useSession } from '../api/session.ts';
import type { EventType, WebhookSettingsView } from '../api/types.ts';
import { rotateWebhookSecret, saveWebhookSettings, webhookKeys, webhookSettingsQuery } from '../api/webhooks.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { CheckboxGroup, TextField } from '../components/field.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { DeliveryLog } from './webhook-delivery-log.tsx';

export default function WebhooksPage() {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const settings = useQuery(webhookSettingsQuery);
  return (
    <Page title="Webhooks" description={<>herald posts each event to your URL, signed per Standard Webhooks, and retries on the published schedule.</>}>
      <QueryState query={settings}>
        {(data) => (
          <>
            <SettingsForm settings={data} canWrite={canWrite} />
            {data.secret === null ? null : <SecretPanel secret={data.secret} canWrite={canWrite} />}
          </>
        )}
      </QueryState>
      <DeliveryLog canWrite={canWrite} hasUrl={settings.data?.url !== null && settings.data?.url !== undefined} />
    </Page>
  );
}

function SettingsForm(props: { settings: WebhookSettingsView; canWrite: boolean }) {
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
    <Section title="Endpoint">
      <form onSubmit={submit} noValidate>
        <TextField label="URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/herald-events"
          hint="Empty: no webhooks. A private or reserved address is refused." readOnly={!props.canWrite} />
        <CheckboxGroup legend="Event types" options={EVENT_TYPES.map((t) => ({ value: t, label: t }))} value={events} onChange={setEvents} disabled={!props.canWrite}
          hint={<>All checked: every type, including ones added later. <button type="button" className="link-button" disabled={!props.canWrite} onClick={() => setEvents([...EVENT_TYPES])}>Check all</button></>} />
        {events.length === 0 ? <p className="field-error">Choose at least one type, or clear the URL to turn webhooks off.</p> : null}
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        {save.isSuccess ? <p className="notice" role="status">Saved.</p> : null}
        {props.canWrite ? <button type="submit" className="button" disabled={save.isPending || events.length === 0}>Save endpoint</button> : null}
      </form>
    </Section>
  );
}

function SecretPanel(props: { secret: string; canWrite: boolean }) {
  const client = useQueryClient();
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const rotate = useMutation({
    mutationFn: rotateWebhookSecret,
    onSuccess: () => {
      setConfirming(false);
      setRevealed(true);
      void client.invalidateQueries({ queryKey: webhookKeys.settings });
    },
  });
  return (
    <Section title="Signing secret">
      <div className="copy-value">
        <code aria-label={revealed ? 'Signing secret' : 'Signing secret, hidden'}>{revealed ? props.secret : `${props.secret.slice(0, 6)}${'•'.repeat(24)}`}</code>
        <button type="button" className="button small secondary" aria-pressed={revealed} onClick={() => setRevealed(!revealed)}>{revealed ? 'Hide' : 'Reveal'}</button>
        <CopyButton text={props.secret} label="Copy the signing secret" />
      </div>
      {rotate.data?.previous_secret_expires_at ? <p className="notice" role="status">Rotated. The previous secret signs too, as a second signature, until <Time iso={rotate.data.previous_secret_expires_at} />.</p> : null}
      {rotate.isError ? <ErrorNotice error={rotate.error} /> : null}
      {props.canWrite ? <button type="button" className="button secondary" onClick={() => setConfirming(true)}>Rotate secret</button> : null}
      <ConfirmDialog open={confirming} onClose={() => setConfirming(false)} title="Rotate the signing secret?" confirmLabel="Rotate" busy={rotate.isPending} onConfirm={() => rotate.mutate()}>
        <p>A new secret signs from now on. The current one keeps signing beside it for 24 hours, so receivers can switch without missing events.</p>
      </ConfirmDialog>
    </Section>
  );
}

