import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { capturedQuery, certificateQuery, fetchRawMime, isNotFound, messagePreviewUrl, messageQuery } from '../api/messages.ts';
import type { MessageView } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';

/** Statuses after which more events are expected soon; the page asks again every IN_FLIGHT_POLL_MS. */
const IN_FLIGHT: ReadonlySet<string> = new Set(['queued', 'sending', 'deferred']);
const IN_FLIGHT_POLL_MS = 2_000;

/** A message: its timeline with the peers' words, and what went out on its channel. */
export default function MessagePage() {
  const msgid = useParams().msgid ?? '';
  const message = useQuery({
    ...messageQuery(msgid),
    // Still on its way: the next events (sent, delivered, a bounce…) appear without a reload.
    // Only while the tab is seen (TanStack Query pauses intervals in the background).
    refetchInterval: (query) => (IN_FLIGHT.has(query.state.data?.status ?? '') ? IN_FLIGHT_POLL_MS : false),
  });
  if (message.isError && isNotFound(message.error)) {
    return (
      <Page title="Message not found" description={<Link to="/messages">← All messages</Link>}>
        <div className="state empty" role="alert"><p><strong>Message not found.</strong> No message of this account has the id <code>{msgid}</code>.</p></div>
      </Page>
    );
  }
  return (
    <Page title="Message" description={<Link to="/messages">← All messages</Link>}>
      <QueryState query={message}>
        {(m) => (
          <>
            <Section title="Summary">
              <dl className="facts">
                <div className="full"><dt>msgid</dt><dd><CopyValue value={m.msgid} label="the msgid" /></dd></div>
                <div><dt>Recipient</dt><dd>{m.recipient}</dd></div>
                <div><dt>Channel</dt><dd>{m.channel}</dd></div>
                <div><dt>Status</dt><dd><StatusBadge status={m.status} /></dd></div>
                <div><dt>Created</dt><dd><Time iso={m.created_at} /></dd></div>
              </dl>
            </Section>
            <Section title="Timeline"><Timeline events={m.events} /></Section>
            {m.channel === 'email' ? <EmailContent msgid={m.msgid} /> : <CapturedJson msgid={m.msgid} channel={m.channel} />}
            {m.channel === 'email' ? <Certificate msgid={m.msgid} /> : null}
          </>
        )}
      </QueryState>
    </Page>
  );
}

const EVENT_KEYS_SHOWN_ELSEWHERE = new Set(['type', 'at']);

function Timeline(props: { events: MessageView['events'] }) {
  if (props.events.length === 0) return <p className="muted">No events yet.</p>;
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
  return (
    <Section title="Email as sent" actions={<button type="button" className="button secondary small" onClick={() => void downloadRaw(props.msgid)}>Download raw MIME (.eml)</button>}>
      {/* herald serves the preview with its own CSP; the sandbox without allow-scripts or allow-same-origin runs nothing. */}
      <iframe className="email-frame tall" title="The email as the recipient sees it" sandbox="" src={messagePreviewUrl(props.msgid)} />
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
  const raw = useQuery(capturedQuery(props.msgid));
  const title = props.channel === 'sms' ? 'SMS as submitted' : 'WhatsApp request body';
  if (raw.isError && isNotFound(raw.error)) return <Section title={title}><p className="muted">herald keeps the submitted form only with the capture transport.</p></Section>;
  return (
    <Section title={title}>
      <QueryState query={raw}>
        {(body) => props.channel === 'sms' ? <SmsView capture={body as unknown as SmsCapture} /> : <pre className="text-preview" tabIndex={0}>{JSON.stringify(body, null, 2)}</pre>}
      </QueryState>
    </Section>
  );
}

function SmsView(props: { capture: SmsCapture }) {
  const { capture } = props;
  return (
    <>
      <p>{capture.segments.length} segment{capture.segments.length === 1 ? '' : 's'}, {capture.encoding}, to {capture.to}</p>
      <pre className="text-preview" tabIndex={0}>{capture.text}</pre>
      {capture.segments.length > 1 ? (
        <ol className="segments">{capture.segments.map((segment, i) => <li key={i}><pre className="text-preview">{segment}</pre></li>)}</ol>
      ) : null}
    </>
  );
}

function Certificate(props: { msgid: string }) {
  const certificate = useQuery(certificateQuery(props.msgid));
  if (certificate.isPending) return <Loading label="Looking for a delivery certificate…" />;
  if (certificate.isError) return <ErrorNotice error={certificate.error} />;
  if (certificate.data === null) return null;
  const c = certificate.data;
  return (
    <Section title="Delivery certificate">
      <p>A receipt signed by herald (EdDSA); check it against the key at <a href={c.jwks_url}>{c.jwks_url}</a>.</p>
      <pre className="text-preview" tabIndex={0}>{JSON.stringify(c.evidence, null, 2)}</pre>
      <CopyValue value={c.receipt} label="the signed receipt" />
    </Section>
  );
}
