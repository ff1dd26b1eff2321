import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { toGsm7 } from '@herald/domain/gsm7.ts';
import { segmentCount } from '@herald/domain/sms-request.ts';
import { addressList, sendComposedSms } from '../api/compose.ts';
import type { AccountView } from '../api/types.ts';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { formatCount } from '../lib/format.ts';
import { QuoteBox, SentNotice, useRefusalClearedOnEdit } from './compose-parts.tsx';

/** An SMS to one or more numbers through POST /v1/sms/send, counted as herald bills it. */
export function ComposeSms(props: { account: AccountView; onSent: () => void }) {
  const { t } = useTranslation('compose');
  const senders = props.account.sms_senders;
  const [from, setFrom] = useState(senders[0] ?? '');
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const numbers = addressList(to);
  // herald's own counting (domain/sms-request.ts): the GSM-cleaned text in 160-character messages.
  const characters = toGsm7(text).length;
  const segments = segmentCount(text);
  const send = useMutation({
    mutationFn: () => sendComposedSms({ mobile_numbers: numbers, message: text, ...(from === '' ? {} : { from }) }),
    onSuccess: props.onSent,
  });
  useRefusalClearedOnEdit(send, JSON.stringify([from, to, text]));
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!send.isPending) send.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-label={t('sms.form')}>
      <div className="compose-grid">
        {senders.length === 0
          ? <p className="hint">{t('sms.defaultSender')}</p>
          : (
            <SelectField label={t('sms.from')} value={from} onChange={(e) => setFrom(e.target.value)}>
              {senders.map((s) => <option key={s} value={s}>{s}</option>)}
            </SelectField>
          )}
        <TextField label={t('sms.to')} value={to} onChange={(e) => setTo(e.target.value)} hint={t('sms.toHint')} autoComplete="off" inputMode="tel" />
      </div>
      <TextArea label={t('sms.message')} rows={5} value={text} onChange={(e) => setText(e.target.value)} />
      <p className="hint" aria-live="polite" data-testid="sms-count">
        {t('sms.count', { characters: formatCount(characters), count: segments })}
        {toGsm7(text) === text ? null : <> {t('sms.converted')}</>}
      </p>
      <QuoteBox kind="messages" count={segments * numbers.length} have={props.account.messages_left}
        detail={t('sms.quote', { count: numbers.length, perNumber: t('sms.segments', { count: segments }) })} />
      {send.isError ? <ErrorNotice error={send.error} /> : null}
      <button type="submit" className="button" disabled={send.isPending}>{send.isPending ? t('sending') : t('sms.send')}</button>
      {send.isSuccess ? (
        <SentNotice answer={send.data.result}
          summary={t('sms.sent', { count: send.data.total_messages_sent, left: formatCount(send.data.messages_left) })}
          messages={(send.data.messages ?? []).map((m) => ({ msgid: m.msgid, to: m.mobile_number }))} />
      ) : null}
    </form>
  );
}
