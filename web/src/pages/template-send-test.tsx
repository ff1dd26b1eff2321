import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { domainsQuery } from '../api/domains.ts';
import { sendEmail } from '../api/messages.ts';
import { useSession } from '../api/session.ts';
import type { EmailTemplateView } from '../api/types.ts';
import { SelectField, TextField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';

/** Sends the saved template to the signed-in user through POST /v1/email, as any client would. */
export function SendTest(props: { template: EmailTemplateView; variables: Record<string, string>; subject: string }) {
  const { t } = useTranslation('templates');
  const session = useSession();
  const domains = useQuery(domainsQuery);
  const verified = (domains.data?.domains ?? []).filter((d) => d.verified).map((d) => d.domain);
  const [domain, setDomain] = useState('');
  const [to, setTo] = useState(session.data?.user.email ?? '');
  const from = domain !== '' ? domain : verified[0];
  const send = useMutation({
    mutationFn: () => {
      // The sender's name and the fallback subject are the message's own words: they go out as written here.
      const sender = { email: `test@${from ?? ''}`, name: 'herald test' };
      return sendEmail({
        to: [{ email: to.trim() }], from: sender, replyTo: sender,
        subject: props.subject === '' ? t('sendTest.fallbackSubject', { name: props.template.name }) : props.subject,
        template_id: props.template.template_id, variables: props.variables,
      });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <Section title={t('sendTest.title')}>
      {domains.isSuccess && verified.length === 0 ? <p><Trans t={t} i18nKey="sendTest.needsDomain" components={{ link: <Link to="/domains" /> }} /></p> : (
        <form onSubmit={submit} noValidate>
          <p className="hint">{t('sendTest.hint')}</p>
          <TextField label={t('sendTest.to')} type="email" value={to} onChange={(e) => setTo(e.target.value)} />
          {verified.length > 1 ? (
            <SelectField label={t('sendTest.fromDomain')} value={from} onChange={(e) => setDomain(e.target.value)}>
              {verified.map((d) => <option key={d} value={d}>{d}</option>)}
            </SelectField>
          ) : null}
          {send.isError ? <ErrorNotice error={send.error} /> : null}
          {send.isSuccess ? (
            <p className="notice" role="status">{send.data.message}: {send.data.to.map((r) => <Link key={r.msgid} to={`/messages/${r.msgid}`}>{r.email}</Link>)}</p>
          ) : null}
          <button type="submit" className="button secondary" disabled={send.isPending || from === undefined || to.trim() === ''}>
            {t('sendTest.send', { to: to.trim() === '' ? '…' : to.trim() })}
          </button>
        </form>
      )}
    </Section>
  );
}
