import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { consentQuery, type PersonConsent } from '../api/consent.ts';
import { conversationKeys, fetchThread } from '../api/conversations.ts';
import type { ReceivedThreadItem, SentThreadItem, ThreadItem } from '../api/types.ts';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { formatCount, utcTime } from '../lib/format.ts';
import { useChannelName } from './conversation-channel.ts';
import { ConversationReply } from './conversation-reply.tsx';

/**
 * One person's thread: their consent, the messages both ways as bubbles, and the reply box.
 * What people sent is shown as text only (React escapes it): never as HTML in this page.
 */
export function ConversationThreadPane(props: { person: string; back: ReactNode }) {
  const { t } = useTranslation('conversations');
  const thread = useInfiniteQuery({
    queryKey: conversationKeys.thread(props.person),
    queryFn: ({ pageParam }) => fetchThread(props.person, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // Replies arrive while the page is open.
    staleTime: 0, refetchInterval: 20_000,
  });
  const consent = useQuery(consentQuery(props.person));
  const pages = thread.data?.pages ?? [];
  // The first page is the latest (its window and reply channel are the current ones); older pages read above it.
  const latest = pages[0];
  const items = [...pages].reverse().flatMap((page) => page.data);
  const bottom = useRef<HTMLOListElement>(null);
  const newest = latest?.data.at(-1);
  useEffect(() => {
    const list = bottom.current;
    if (list !== null) list.scrollTop = list.scrollHeight;
  }, [props.person, newest]);

  return (
    <section className="conversation-thread card" aria-labelledby="thread-heading">
      {props.back}
      <div className="card-head">
        <h2 id="thread-heading">{props.person}</h2>
        {consent.data == null ? null : <ConsentBadges consent={consent.data} />}
      </div>
      {thread.isPending ? <Loading label={t('thread.loading')} /> : null}
      {thread.isError ? <ErrorNotice error={thread.error} onRetry={() => void thread.refetch()} /> : null}
      {latest === undefined ? null : (
        <>
          {thread.hasNextPage ? (
            <div className="pager">
              <button type="button" className="button secondary" disabled={thread.isFetchingNextPage} onClick={() => void thread.fetchNextPage()}>{t('thread.older')}</button>
            </div>
          ) : null}
          <ol className="bubbles" ref={bottom} tabIndex={0} aria-label={t('thread.messages', { person: props.person })}>
            {items.map((item) => <Bubble key={item.direction === 'out' ? item.msgid : String(item['id'])} item={item} />)}
          </ol>
          <ConversationReply key={props.person} thread={latest} optedOut={(consent.data?.channels ?? []).filter((c) => c.optedOut).map((c) => c.channel)} />
        </>
      )}
    </section>
  );
}

function ConsentBadges(props: { consent: PersonConsent }) {
  const { t } = useTranslation('conversations');
  const channelName = useChannelName();
  const { channels, suppressed } = props.consent;
  if (channels.length === 0 && suppressed === null) return null;
  return (
    <ul className="consent-badges" aria-label={t('consent.label')}>
      {channels.map((c) => (
        <li key={c.channel}>
          <span className={`badge ${c.optedOut ? 'bad' : 'good'}`} title={c.at === null ? undefined : t('consent.since', { time: utcTime(c.at) })}>
            {t(c.optedOut ? 'consent.optedOut' : 'consent.optedIn', { channel: channelName(c.channel) })}
          </span>
        </li>
      ))}
      {/* A delivery matter, not consent: said apart. */}
      {suppressed === null ? null : <li><span className="badge warn">{t('consent.suppressed', { reason: suppressed })}</span></li>}
    </ul>
  );
}

function Bubble(props: { item: ThreadItem }) {
  return props.item.direction === 'out' ? <SentBubble item={props.item as SentThreadItem} /> : <ReceivedBubble item={props.item as ReceivedThreadItem} />;
}

function SentBubble(props: { item: SentThreadItem }) {
  const { t } = useTranslation('conversations');
  const channelName = useChannelName();
  const m = props.item;
  return (
    <li className="bubble out">
      <p className="bubble-meta"><span className="visually-hidden">{t('thread.youSent')} </span>{channelName(m.channel)} · <Time iso={m.at} /> · <StatusBadge status={m.status} /></p>
      {m.subject === undefined ? null : <p className="bubble-subject">{m.subject}</p>}
      {m.template === undefined ? null : <p className="bubble-subject">{t('thread.template', { template: m.template })}</p>}
      <p className="bubble-text">{m.text ?? <span className="muted">{t('thread.removed')}</span>}</p>
      <p className="bubble-link"><Link to={`/messages/${m.msgid}`}>{t('thread.details')}</Link></p>
    </li>
  );
}

interface Attachment { id: string; filename: string | null; content_type: string | null; size: number; state: string; url: string }

function ReceivedBubble(props: { item: ReceivedThreadItem }) {
  const { t } = useTranslation('conversations');
  const channelName = useChannelName();
  const m = props.item;
  const text = typeof m['text'] === 'string' ? m['text'] : null;
  const subject = typeof m['subject'] === 'string' ? m['subject'] : null;
  const kind = typeof m['type'] === 'string' && m['type'] !== 'text' ? m['type'] : null;
  const keyword = typeof m['keyword'] === 'string' ? m['keyword'] : null;
  const attachments = Array.isArray(m['attachments']) ? m['attachments'] as Attachment[] : [];
  return (
    <li className="bubble in">
      <p className="bubble-meta">
        <span className="visually-hidden">{t('thread.theyWrote')} </span>{channelName(String(m['channel']))} · <Time iso={m.at} />
        {keyword === null ? null : <> · <span className="badge warn">{keyword.toUpperCase()}</span></>}
      </p>
      {subject === null ? null : <p className="bubble-subject">{subject}</p>}
      {kind === null ? null : <p className="muted">[{kind}]</p>}
      {text === null ? null : <p className="bubble-text">{text}</p>}
      {attachments.length === 0 ? null : (
        <ul className="bubble-attachments" aria-label={t('thread.attachments')}>
          {attachments.map((a) => (
            <li key={a.id}>
              {a.state === 'stored'
                ? <a href={a.url} download={a.filename ?? true}>{a.filename ?? t('thread.attachment')}</a>
                : <span>{t('thread.attachmentState', { name: a.filename ?? t('thread.attachment'), state: a.state })}</span>}
              {' '}<span className="muted">{a.content_type ?? ''} {a.size > 0 ? t('thread.kilobytes', { size: formatCount(Math.ceil(a.size / 1024)) }) : ''}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
