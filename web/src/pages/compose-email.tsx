import { useMutation, useQuery } from '@tanstack/react-query';
import { useCallback, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { addressList, sendComposedEmail, type EmailSend } from '../api/compose.ts';
import { domainsQuery } from '../api/domains.ts';
import { useSession } from '../api/session.ts';
import { templateQuery, templatesQuery } from '../api/templates.ts';
import type { AccountView } from '../api/types.ts';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { useFormDraft } from '../lib/form-draft.ts';
import { templateVariables } from '../lib/template-variables.ts';
import { ChoiceGroup, QuoteBox, SentNotice, useRefusalClearedOnEdit } from './compose-parts.tsx';

type Mode = 'direct' | 'template';

interface EmailDraft {
  mode: Mode; fromName: string; from: string; replyTo: string; to: string; cc: string; bcc: string;
  subject: string; body: string; templateId: string; variables: Record<string, string>;
}

/** An email written here or filled from a stored template, sent through POST /v1/email. */
export function ComposeEmail(props: { account: AccountView; onSent: () => void }) {
  const { t } = useTranslation('compose');
  const domains = useQuery(domainsQuery);
  const templates = useQuery(templatesQuery);
  const verified = (domains.data?.domains ?? []).filter((d) => d.verified).map((d) => d.domain);
  const [mode, setMode] = useState<Mode>('direct');
  const [fromName, setFromName] = useState('');
  const [from, setFrom] = useState('');
  const [replyTo, setReplyTo] = useState('');
  const [to, setTo] = useState('');
  const [cc, setCc] = useState('');
  const [bcc, setBcc] = useState('');
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [variables, setVariables] = useState<Record<string, string>>({});
  // The message being written is kept in the tab until it is sent (web/src/lib/form-draft.ts):
  // an ended session or a reload gives it back; leaving with it unsent asks first.
  const draft: EmailDraft = { mode, fromName, from, replyTo, to, cc, bcc, subject, body, templateId, variables };
  const [sentDraft, setSentDraft] = useState('');
  const written = [fromName, from, replyTo, to, cc, bcc, subject, body, templateId].some((v) => v !== '') || Object.values(variables).some((v) => v !== '');
  const dirty = written && JSON.stringify(draft) !== sentDraft;
  const restore = useCallback((kept: EmailDraft) => {
    setMode(kept.mode); setFromName(kept.fromName); setFrom(kept.from); setReplyTo(kept.replyTo); setTo(kept.to); setCc(kept.cc);
    setBcc(kept.bcc); setSubject(kept.subject); setBody(kept.body); setTemplateId(kept.templateId); setVariables(kept.variables);
  }, []);
  const userId = useSession().data?.user.user_id;
  const kept = useFormDraft(userId === undefined ? undefined : `compose-email.${userId}`, draft, dirty, restore, t('leaveQuestion'));
  const template = useQuery({ ...templateQuery(templateId), enabled: mode === 'template' && templateId !== '' });
  const names = template.data === undefined ? [] : templateVariables([template.data.html, template.data.subject, template.data.text]);

  const recipients = { to: addressList(to), cc: addressList(cc), bcc: addressList(bcc) };
  const count = recipients.to.length + recipients.cc.length + recipients.bcc.length;
  const send = useMutation({
    mutationFn: () => {
      const sender = { email: from.trim(), name: fromName.trim() };
      const request: EmailSend = {
        to: recipients.to.map((email) => ({ email })),
        ...(recipients.cc.length + recipients.bcc.length === 0 ? {} : {
          options: { cc: recipients.cc.map((email) => ({ email })), bcc: recipients.bcc.map((email) => ({ email })) },
        }),
        from: sender,
        replyTo: replyTo.trim() === '' ? sender : { email: replyTo.trim(), name: fromName.trim() },
        subject,
        ...(mode === 'direct' ? { body } : { template_id: templateId, variables: Object.fromEntries(names.map((n) => [n, variables[n] ?? ''])) }),
      };
      return sendComposedEmail(request);
    },
    onSuccess: () => {
      setSentDraft(JSON.stringify(draft));
      kept.discard();
      props.onSent();
    },
  });
  useRefusalClearedOnEdit(send, JSON.stringify(draft));

  const chooseTemplate = (id: string): void => {
    setTemplateId(id);
    const chosen = templates.data?.templates.find((x) => x.template_id === id);
    // The template's own subject (placeholders and all) unless one was typed.
    if (subject === '' && chosen?.subject != null) setSubject(chosen.subject);
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!send.isPending) send.mutate();
  };

  return (
    <form onSubmit={submit} noValidate aria-label={t('email.form')}>
      {domains.isSuccess && verified.length === 0
        ? <p className="state warning" role="note">{t('email.noDomain')} <Link to="/domains">{t('email.addDomain')}</Link></p>
        : null}
      <div className="compose-grid">
        <TextField label={t('email.fromName')} value={fromName} onChange={(e) => setFromName(e.target.value)} autoComplete="off" />
        <TextField label={t('email.from')} type="email" value={from} onChange={(e) => setFrom(e.target.value)} autoComplete="off"
          hint={verified.length === 0 ? t('email.fromHintNone') : t('email.fromHint', { domains: verified.join(', ') })} />
        <TextField label={t('email.to')} value={to} onChange={(e) => setTo(e.target.value)} hint={t('email.addressesHint')} autoComplete="off" />
        <TextField label={t('email.replyTo')} type="email" value={replyTo} onChange={(e) => setReplyTo(e.target.value)} hint={t('email.replyToHint')} autoComplete="off" />
        <TextField label={t('email.cc')} value={cc} onChange={(e) => setCc(e.target.value)} autoComplete="off" />
        <TextField label={t('email.bcc')} value={bcc} onChange={(e) => setBcc(e.target.value)} autoComplete="off" />
      </div>
      <TextField label={t('email.subject')} value={subject} onChange={(e) => setSubject(e.target.value)} autoComplete="off" />
      <ChoiceGroup legend={t('email.content')} name="compose-email-mode" value={mode} onChange={setMode}
        options={[{ value: 'direct', label: t('email.direct') }, { value: 'template', label: t('email.fromTemplate') }]} />
      {mode === 'template' ? (
        <>
          <SelectField label={t('email.template')} value={templateId} onChange={(e) => chooseTemplate(e.target.value)}
            hint={templates.isSuccess && templates.data.templates.length === 0 ? t('email.noTemplates') : undefined}>
            <option value="">{t('email.chooseTemplate')}</option>
            {(templates.data?.templates ?? []).map((x) => <option key={x.template_id} value={x.template_id}>{x.name}</option>)}
          </SelectField>
          {template.isError ? <ErrorNotice error={template.error} onRetry={() => void template.refetch()} /> : null}
          {names.length === 0 ? null : (
            <fieldset className="checkbox-group compose-variables">
              <legend>{t('email.variables')}</legend>
              {names.map((name) => (
                <TextField key={name} label={name} value={variables[name] ?? ''} autoComplete="off"
                  onChange={(e) => setVariables({ ...variables, [name]: e.target.value })} />
              ))}
            </fieldset>
          )}
        </>
      ) : null}
      {mode === 'direct'
        ? <TextArea label={t('email.body')} rows={8} value={body} onChange={(e) => setBody(e.target.value)} hint={t('email.bodyHint')} />
        : null}
      <QuoteBox kind="messages" count={count} have={props.account.messages_left}
        detail={t('email.quote', { count, recipients: count })} />
      {send.isError ? <ErrorNotice error={send.error} /> : null}
      <button type="submit" className="button" disabled={send.isPending}>{send.isPending ? t('sending') : t('email.send')}</button>
      {send.isSuccess ? (
        <SentNotice answer={send.data.message} summary={t('email.sent', { count: send.data.to.length })}
          messages={send.data.to.map((r) => ({ msgid: r.msgid, to: r.email }))} />
      ) : null}
    </form>
  );
}
