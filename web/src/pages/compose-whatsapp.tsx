import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { sendComposedWhatsapp } from '../api/compose.ts';
import { whatsappTemplatesQuery } from '../api/templates.ts';
import type { AccountView } from '../api/types.ts';
import { SelectField, TextField } from '../components/field.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { formatMoney } from '../lib/format.ts';
import { QuoteBox, SentNotice, useRefusalClearedOnEdit } from './compose-parts.tsx';

/** A WhatsApp template message through POST /v1/whatsapp/sendTemplateMessage: only approved templates go out. */
export function ComposeWhatsapp(props: { account: AccountView; onSent: () => void }) {
  const { t } = useTranslation('compose');
  const templates = useQuery(whatsappTemplatesQuery);
  const [templateId, setTemplateId] = useState('');
  const [destination, setDestination] = useState('');
  const [params, setParams] = useState<string[]>([]);
  const template = templates.data?.templates.find((x) => x.templateId === templateId);
  const filled = Array.from({ length: template?.paramCount ?? 0 }, (_, i) => params[i] ?? '');
  const send = useMutation({
    mutationFn: () => sendComposedWhatsapp({ destination: destination.trim(), templateId, params: filled }),
    onSuccess: props.onSent,
  });
  useRefusalClearedOnEdit(send, JSON.stringify([templateId, destination, filled]));
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!send.isPending) send.mutate();
  };
  // The body as it will read: each {{n}} replaced by what was typed for it.
  const preview = template?.body.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => filled[Number(n) - 1] || whole);
  return (
    <form onSubmit={submit} noValidate aria-label={t('whatsapp.form')}>
      <p className="hint">{t('whatsapp.intro')} <Link to="/whatsapp-templates">{t('whatsapp.manage')}</Link></p>
      <SelectField label={t('whatsapp.template')} value={templateId} onChange={(e) => { setTemplateId(e.target.value); setParams([]); }}>
        <option value="">{t('whatsapp.chooseTemplate')}</option>
        {(templates.data?.templates ?? []).map((x) => (
          <option key={x.templateId} value={x.templateId} disabled={x.status !== 'APPROVED'}>
            {x.status === 'APPROVED' ? `${x.name} (${x.language})` : t('whatsapp.notApproved', { name: x.name, language: x.language, status: x.status })}
          </option>
        ))}
      </SelectField>
      <TextField label={t('whatsapp.destination')} value={destination} onChange={(e) => setDestination(e.target.value)} hint={t('whatsapp.destinationHint')} autoComplete="off" inputMode="tel" />
      {filled.length === 0 ? null : (
        <fieldset className="checkbox-group compose-variables">
          <legend>{t('whatsapp.params')}</legend>
          {filled.map((value, i) => (
            <TextField key={i} label={t('whatsapp.param', { n: i + 1 })} value={value} autoComplete="off"
              onChange={(e) => setParams(filled.map((v, j) => (j === i ? e.target.value : v)))} />
          ))}
        </fieldset>
      )}
      {preview === undefined ? null : <p className="compose-preview" aria-label={t('whatsapp.preview')}>{preview}</p>}
      <QuoteBox kind="money" price={props.account.whatsapp_price} have={props.account.balance}
        detail={t('whatsapp.quote', { price: formatMoney(props.account.whatsapp_price) })} />
      {send.isError ? <ErrorNotice error={send.error} /> : null}
      <button type="submit" className="button" disabled={send.isPending}>{send.isPending ? t('sending') : t('whatsapp.send')}</button>
      {send.isSuccess ? (
        <SentNotice answer={send.data.result} summary={t('whatsapp.sent', { balance: formatMoney(send.data.current_balance) })}
          messages={send.data.msgid === undefined ? [] : [{ msgid: send.data.msgid, to: destination.trim() }]} />
      ) : null}
    </form>
  );
}
