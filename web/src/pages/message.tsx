import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { allows, useSession } from '../api/session.ts';
import { capturedQuery, certificateQuery, fetchRawMime, isNotFound, messagePreviewUrl, messageQuery } from '../api/messages.ts';
import type { MessageView } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { channelName, formatRecipient } from '../lib/format.ts';
import { CancelSchedule } from './message-schedule.tsx';
import { FallbackChain } from './message-fallback.tsx';

/** Statuses after which more events are expected soon; the page asks again every IN_FLIGHT_POLL_MS. */
const IN_FLIGHT: ReadonlySet<string> = new Set(['queued', 'sending', 'deferred']);
const IN_FLIGHT_POLL_MS = 2_000;

/** A message: its timeline with the peers' words, and what went out on its channel. */
export default function MessagePage() {
  const { t } = useTranslation('messages');
  const msgid = useParams().msgid ?? '';
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const message = useQuery({
    ...messageQuery(msgid),
    // Still on its way: the next events (sent, delivered, a bounce…) appear without a reload.
    // Only while the tab is seen (TanStack Query pauses intervals in the background).
    refetchInterval: (query) => (IN_FLIGHT.has(query.state.data?.status ?? '') ? IN_FLIGHT_POLL_MS : false),
  });
  if (message.isError && isNotFound(message.error)) {
    return (
      <Page title={t('message.notFoundTitle')} description={<Link to="/messages">{t('message.back')}</Link>}>
        <div className="state empty" role="alert"><p><strong>{t('message.notFound')}</strong> {t('message.notFoundDetail')} <code>{msgid}</code></p></div>
      </Page>
    );
  }
  return (
    <Page title={t('message.title')} description={<Link to="/messages">{t('message.back')}</Link>}>
      <QueryState query={message}>
        {(m) => (
          <>
            <Section title={t('message.summary')} actions={canWrite && m.status === 'scheduled' ? <CancelSchedule message={m} /> : undefined}>
              <dl className="facts">
                <div className="full"><dt>{t('message.msgid')}</dt><dd><CopyValue value={m.msgid} label={t('message.theMsgid')} /></dd></div>
                {m.subject === null ? null : <div className="full"><dt>{t('message.subject')}</dt><dd>{m.subject}</dd></div>}
                <div><dt>{t('message.recipient')}</dt><dd>{formatRecipient(m.channel, m.recipient)}</dd></div>
                <div><dt>{t('message.sender')}</dt><dd>{m.sender ?? <span className="muted">{t('message.defaultSender')}</span>}</dd></div>
                <div><dt>{t('message.channel')}</dt><dd>{channelName(m.channel)}</dd></div>
                <div><dt>{t('message.status')}</dt><dd><StatusBadge status={m.status} kind="message" /></dd></div>
                <div><dt>{t('message.created')}</dt><dd><Time iso={m.created_at} /></dd></div>
                {m.send_at === undefined ? null : <div><dt>{t('message.sendAt')}</dt><dd><Time iso={m.send_at} /></dd></div>}
                {m.campaign === null ? null : <div><dt>{t('message.campaign')}</dt><dd><Link to={`/campaigns/${m.campaign.id}`}>{m.campaign.name}</Link></dd></div>}
                {m.tag === null ? null : <div><dt>{t('message.tag')}</dt><dd><code>{m.tag}</code></dd></div>}
              </dl>
            </Section>
            {m.metadata === null ? null : <Metadata metadata={m.metadata} />}
            {m.fallback === undefined ? null : <FallbackChain chain={m.fallback} current={m.msgid} />}
            <Section title={t('message.timeline')}><Timeline events={m.events} /></Section>
            {m.channel === 'email' ? <EmailContent msgid={m.msgid} /> : <CapturedJson msgid={m.msgid} channel={m.channel} />}
            {m.channel === 'email' ? <Certificate msgid={m.msgid} /> : null}
          </>
        )}
      </QueryState>
    </Page>
  );
}

const EVENT_KEYS_SHOWN_ELSEWHERE = new Set(['type', 'at']);

/** The metadata the send carried: a text per key as written, anything else as JSON. */
function Metadata(props: { metadata: Readonly<Record<string, unknown>> }) {
  const { t } = useTranslation('messages');
  return (
    <Section title={t('message.metadata')}>
      <dl className="facts">
        {Object.entries(props.metadata).map(([key, value]) => (
          <div key={key}><dt><code>{key}</code></dt><dd>{typeof value === 'string' ? value : <code>{JSON.stringify(value)}</code>}</dd></div>
        ))}
      </dl>
    </Section>
  );
}

function Timeline(props: { events: MessageView['events'] }) {
  const { t } = useTranslation('messages');
  if (props.events.length === 0) return <p className="muted">{t('message.noEvents')}</p>;
  return (
    <ol className="timeline">
      {props.events.map((event, index) => {
        const details = Object.entries(event).filter(([key, value]) => !EVENT_KEYS_SHOWN_ELSEWHERE.has(key) && value !== null && value !== undefined && value !== '');
        return (
          <li key={index}>
            <div className="timeline-head"><strong>{event.type}</strong> <Time iso={event.at} /></div>
            {details.length === 0 ? null : (
              <dl className="event-details">
                {details.map(([key, value]) => (
                  <div key={key}><dt>{key}</dt><dd>{typeof value === 'string' ? <q className="peer-words">{value}</q> : <code>{JSON.stringify(value)}</code>}</dd></div>
                ))}
              </dl>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function EmailContent(props: { msgid: string }) {
  const { t } = useTranslation('messages');
  return (
    <Section title={t('message.emailAsSent')} actions={<button type="button" className="button secondary small" onClick={() => void downloadRaw(props.msgid)}>{t('message.downloadRaw')}</button>}>
      {/* herald serves the preview with its own CSP; the sandbox without allow-scripts or allow-same-origin runs nothing. */}
      <iframe className="email-frame tall" title={t('message.emailFrame')} sandbox="" src={messagePreviewUrl(props.msgid)} />
    </Section>
  );
}

async function downloadRaw(msgid: string): Promise<void> {
  const blob = await fetchRawMime(msgid);
  const url = URL.createObjectURL(new Blob([blob], { type: 'message/rfc822' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `${msgid}.eml`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

interface SmsCapture { to: string; encoding: string; text: string; segments: string[] }

function CapturedJson(props: { msgid: string; channel: 'sms' | 'whatsapp' }) {
  const { t } = useTranslation('messages');
  const raw = useQuery(capturedQuery(props.msgid));
  const title = props.channel === 'sms' ? t('message.smsAsSubmitted') : t('message.whatsappBody');
  if (raw.isError && isNotFound(raw.error)) return <Section title={title}><p className="muted">{t('message.captureOnly')}</p></Section>;
  return (
    <Section title={title}>
      <QueryState query={raw}>
        {(body) => props.channel === 'sms' ? <SmsView capture={body as unknown as SmsCapture} /> : <pre className="text-preview" tabIndex={0}>{JSON.stringify(body, null, 2)}</pre>}
      </QueryState>
    </Section>
  );
}

function SmsView(props: { capture: SmsCapture }) {
  const { t } = useTranslation('messages');
  const { capture } = props;
  return (
    <>
      <p>{t('message.segments', { count: capture.segments.length, encoding: capture.encoding, to: capture.to })}</p>
      <pre className="text-preview" tabIndex={0}>{capture.text}</pre>
      {capture.segments.length > 1 ? (
        <ol className="segments">{capture.segments.map((segment, i) => <li key={i}><pre className="text-preview">{segment}</pre></li>)}</ol>
      ) : null}
    </>
  );
}

function Certificate(props: { msgid: string }) {
  const { t } = useTranslation('messages');
  const certificate = useQuery(certificateQuery(props.msgid));
  if (certificate.isPending) return <Loading label={t('message.lookingForCertificate')} />;
  if (certificate.isError) return <ErrorNotice error={certificate.error} />;
  if (certificate.data === null) return null;
  const c = certificate.data;
  return (
    <Section title={t('message.certificate')}>
      <p>{t('message.certificateHint')} <a href={c.jwks_url}>{c.jwks_url}</a></p>
      <pre className="text-preview" tabIndex={0}>{JSON.stringify(c.evidence, null, 2)}</pre>
      <CopyValue value={c.receipt} label={t('message.theReceipt')} />
    </Section>
  );
}
