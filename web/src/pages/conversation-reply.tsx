import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { conversationKeys, sendReply } from '../api/conversations.ts';
import type { ConversationThread, ReceivedThreadItem } from '../api/types.ts';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { Time } from '../components/time.tsx';
import { useChannelName } from './conversation-channel.ts';

/** The channels a reply may go on: WhatsApp only inside its window; SMS to a number, email to an address. */
function replyChannels(thread: ConversationThread): string[] {
  const open = thread.whatsapp_window_open_until !== null ? ['whatsapp'] : [];
  return [...open, thread.person.startsWith('+') ? 'sms' : 'email'];
}

/** The last thing the person wrote by email: its subject to answer, and the address they wrote to, to answer from. */
function lastEmail(thread: ConversationThread): { subject: string; to: string } {
  const email = [...thread.data].reverse().find((item): item is ReceivedThreadItem => item.direction === 'in' && item['channel'] === 'email');
  const subject = typeof email?.['subject'] === 'string' ? email['subject'] : '';
  return { subject: subject === '' || /^re:/i.test(subject) ? subject : `Re: ${subject}`, to: typeof email?.['to'] === 'string' ? email['to'] : '' };
}

/**
 * The reply box: a WhatsApp session message while the window is open, otherwise an SMS or an
 * email, sent through the same /v1 routes a key uses. Ctrl+Enter (⌘+Enter) sends.
 */
export function ConversationReply(props: { thread: ConversationThread; optedOut: readonly string[] }) {
  const { thread } = props;
  const { t } = useTranslation('conversations');
  const channelName = useChannelName();
  const client = useQueryClient();
  const channels = replyChannels(thread);
  const [channel, setChannel] = useState(thread.reply_channel);
  const email = lastEmail(thread);
  const [from, setFrom] = useState(email.to);
  const [subject, setSubject] = useState(email.subject);
  const [text, setText] = useState('');
  const reply = useMutation({
    mutationFn: () => sendReply({ channel, person: thread.person, text, from: from.trim(), subject }),
    onSuccess: async () => {
      setText('');
      await Promise.all([
        client.invalidateQueries({ queryKey: conversationKeys.thread(thread.person) }),
        client.invalidateQueries({ queryKey: ['conversations'] }),
      ]);
    },
  });
  const submit = (event?: FormEvent): void => {
    event?.preventDefault();
    if (text.trim() !== '' && !reply.isPending) reply.mutate();
  };
  const sendOnCtrlEnter = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit();
  };

  return (
    <form className="conversation-reply" onSubmit={submit} aria-label={t('reply.label')}>
      {channels.length > 1
        ? <SelectField label={t('reply.by')} value={channel} onChange={(e) => setChannel(e.target.value as typeof channel)}>
          {channels.map((c) => <option key={c} value={c}>{channelName(c)}</option>)}
        </SelectField>
        : <p className="muted">{t('reply.byOnly', { channel: channelName(channel) })}</p>}
      {thread.whatsapp_window_open_until === null ? null : (
        <p className="hint">{t('reply.window')} <Time iso={thread.whatsapp_window_open_until} /></p>
      )}
      {props.optedOut.includes(channel) ? <p className="state warning" role="note">{t('reply.optedOut', { person: thread.person, channel: channelName(channel) })}</p> : null}
      {channel === 'email' ? (
        <div className="reply-email-fields">
          <TextField label={t('reply.from')} type="email" required value={from} onChange={(e) => setFrom(e.target.value)} hint={t('reply.fromHint')} />
          <TextField label={t('reply.subject')} required value={subject} onChange={(e) => setSubject(e.target.value)} />
        </div>
      ) : null}
      <TextArea label={t('reply.message')} rows={3} required value={text} onChange={(e) => setText(e.target.value)} onKeyDown={sendOnCtrlEnter} hint={t('reply.ctrlEnter')} />
      {reply.isError ? <ErrorNotice error={reply.error} /> : null}
      <div className="reply-actions">
        <button type="submit" className="button" disabled={reply.isPending || text.trim() === ''}>{reply.isPending ? t('reply.sending') : t('reply.send', { channel: channelName(channel) })}</button>
        {reply.isSuccess ? <p className="muted" role="status">{t('reply.sent')}</p> : null}
      </div>
    </form>
  );
}
