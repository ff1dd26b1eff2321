import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
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
  const session = useSession();
  const domains = useQuery(domainsQuery);
  const verified = (domains.data?.domains ?? []).filter((d) => d.verified).map((d) => d.domain);
  const [domain, setDomain] = useState('');
  const [to, setTo] = useState(session.data?.user.email ?? '');
  const from = domain !== '' ? domain : verified[0];
  const send = useMutation({
    mutationFn: () => {
      const sender = { email: `test@${from ?? ''}`, name: 'herald test' };
      return sendEmail({
        to: [{ email: to.trim() }], from: sender, replyTo: sender,
        subject: props.subject === '' ? `Test: ${props.template.name}` : props.subject,
        template_id: props.template.template_id, variables: props.variables,
      });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <Section title="Send a test">
      {domains.isSuccess && verified.length === 0 ? <p>A test needs a verified sender domain: <Link to="/domains">add one</Link>.</p> : (
        <form onSubmit={submit} noValidate>
          <p className="hint">Sends the saved template with the sample variables (one message from your allowance).</p>
          <TextField label="To" type="email" value={to} onChange={(e) => setTo(e.target.value)} />
          {verified.length > 1 ? (
            <SelectField label="From domain" value={from} onChange={(e) => setDomain(e.target.value)}>
              {verified.map((d) => <option key={d} value={d}>{d}</option>)}
            </SelectField>
          ) : null}
          {send.isError ? <ErrorNotice error={send.error} /> : null}
          {send.isSuccess ? (
            <p className="notice" role="status">{send.data.message}: {send.data.to.map((r) => <Link key={r.msgid} to={`/messages/${r.msgid}`}>{r.email}</Link>)}</p>
          ) : null}
          <button type="submit" className="button secondary" disabled={send.isPending || from === undefined || to.trim() === ''}>Send test to {to.trim() === '' ? '…' : to.trim()}</button>
        </form>
      )}
    </Section>
  );
}
