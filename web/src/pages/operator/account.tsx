import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { CHANNELS } from '@herald/domain/account.ts';
import { SMS_SENDERS_MAX, smsSenderForm } from '@herald/domain/sms-sender.ts';
import {
  operatorAccountQuery, accountUsersQuery, inviteAccountUser, operatorKeys, topUp as addToAccount, updateAccount,
} from '../../api/operator/accounts.ts';
import type { AccountDetails, AllowListAppliesTo, Channel, Role, TopUpInput, UserInvited } from '../../api/types.ts';
import { DataTable } from '../../components/data-table.tsx';
import { CheckboxGroup, SelectField, TextArea, TextField } from '../../components/field.tsx';
import { Page, Section } from '../../components/page.tsx';
import { ErrorNotice, QueryState } from '../../components/query-state.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { Time } from '../../components/time.tsx';
import { formatCount, formatMoney } from '../../lib/format.ts';
import { APPLIES_TO_CHOICES, APPLIES_TO_HINT, entryError } from '../ip-allow-list-editor.tsx';
import { InvitationLink, ROLES } from '../users.tsx';

export default function OperatorAccountPage() {
  const id = useParams().id ?? '';
  const account = useQuery(operatorAccountQuery(id));
  return (
    <Page title={account.data?.name ?? 'Account'} description={<Link to="/operator">← All accounts</Link>}>
      <QueryState query={account}>
        {(a) => (
          <>
            <Section title="State">
              <dl className="facts">
                <div><dt>Account id</dt><dd><code>{a.id}</code></dd></div>
                <div><dt>State</dt><dd><StatusBadge status={a.active ? 'active' : 'inactive'} /></dd></div>
                <div><dt>Messages left</dt><dd>{formatCount(a.messagesLeft)}</dd></div>
                <div><dt>Balance</dt><dd>{formatMoney(a.balance)}</dd></div>
                <div><dt>Opened</dt><dd><Time iso={a.createdAt} /></dd></div>
                <div><dt>Domains</dt><dd>{a.domains.length === 0 ? 'none' : a.domains.map((d) => `${d.domain}${d.verified ? '' : ' (not verified)'}`).join(', ')}</dd></div>
              </dl>
            </Section>
            <Settings account={a} />
            <AllowList account={a} />
            <SmsSenders account={a} />
            <TopUp id={a.id} />
            <AccountUsers id={a.id} />
          </>
        )}
      </QueryState>
    </Page>
  );
}

function Settings(props: { account: AccountDetails }) {
  const client = useQueryClient();
  const a = props.account;
  const [active, setActive] = useState(a.active);
  const [rate, setRate] = useState(String(a.rateLimitPerSecond));
  const [price, setPrice] = useState(String(a.whatsappPrice));
  const [services, setServices] = useState<Channel[]>(CHANNELS.filter((c) => a.services[c]));
  useEffect(() => {
    setActive(a.active);
    setRate(String(a.rateLimitPerSecond));
    setPrice(String(a.whatsappPrice));
    setServices(CHANNELS.filter((c) => a.services[c]));
  }, [a]);
  const save = useMutation({
    mutationFn: () => updateAccount(a.id, {
      active, rateLimitPerSecond: Number(rate), whatsappPrice: price, services: Object.fromEntries(CHANNELS.map((c) => [c, services.includes(c)])),
    }),
    onSuccess: () => void client.invalidateQueries({ queryKey: operatorKeys.account(a.id) }),
  });
  const rateError = /^[0-9]+$/.test(rate) && Number(rate) >= 1 ? undefined : 'Requests per second: a whole number, 1 or more';
  const priceError = /^[0-9]+(\.[0-9]{1,4})?$/.test(price) ? undefined : 'A price with at most 4 decimals, e.g. 0.0147';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (rateError === undefined && priceError === undefined) save.mutate();
  };
  return (
    <Section title="Settings">
      <form onSubmit={submit} noValidate className="form-grid">
        <SelectField label="Sending" value={active ? 'active' : 'inactive'} onChange={(e) => setActive(e.target.value === 'active')}
          hint="Inactive: every send is refused with “current service is not active”.">
          <option value="active">active</option>
          <option value="inactive">inactive</option>
        </SelectField>
        <TextField label="Rate limit (requests per second)" inputMode="numeric" value={rate} onChange={(e) => setRate(e.target.value)} error={rateError} />
        <TextField label="WhatsApp price" inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} error={priceError} />
        <CheckboxGroup legend="Channels" options={CHANNELS.map((c) => ({ value: c, label: c }))} value={services} onChange={setServices} />
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {save.isSuccess ? <p className="notice span-2" role="status">Saved.</p> : null}
        <div className="span-2"><button type="submit" className="button" disabled={save.isPending}>Save settings</button></div>
      </form>
    </Section>
  );
}

/** One entry a line, blank lines ignored. */
const entriesOf = (text: string): string[] => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');

// The operator's way back in for an account whose people saved themselves out of the
// web application: no check of the operator's own address, which the list never binds.
function AllowList(props: { account: AccountDetails }) {
  const client = useQueryClient();
  const a = props.account;
  const [text, setText] = useState(a.ipAllowList.join('\n'));
  const [appliesTo, setAppliesTo] = useState<AllowListAppliesTo>(a.allowListAppliesTo);
  useEffect(() => {
    setText(a.ipAllowList.join('\n'));
    setAppliesTo(a.allowListAppliesTo);
  }, [a]);
  const entries = entriesOf(text);
  const wrong = entries.map((entry) => [entry, entryError(entry)] as const).find(([, error]) => error !== undefined);
  const save = useMutation({
    mutationFn: () => updateAccount(a.id, { ipAllowList: entries, allowListAppliesTo: appliesTo }),
    onSuccess: () => void client.invalidateQueries({ queryKey: operatorKeys.account(a.id) }),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (wrong === undefined) save.mutate();
  };
  return (
    <Section title="IP allow-list">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextArea label="Addresses and ranges, one a line" className="mono" rows={4} value={text} onChange={(e) => setText(e.target.value)}
          hint="Empty: every address." error={wrong === undefined ? undefined : `${wrong[0]}: ${wrong[1] ?? ''}`} />
        <SelectField label="The list binds" value={appliesTo} onChange={(e) => setAppliesTo(e.target.value as AllowListAppliesTo)} hint={APPLIES_TO_HINT}>
          {APPLIES_TO_CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
        </SelectField>
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {save.isSuccess ? <p className="notice span-2" role="status">Allow-list saved.</p> : null}
        <div className="span-2"><button type="submit" className="button" disabled={save.isPending}>Save the allow-list</button></div>
      </form>
    </Section>
  );
}

/** Entries separated by commas or line breaks; spaces around them and empty ones dropped (an alphanumeric id keeps its inner spaces). */
const sendersOf = (text: string): string[] => text.split(/[,\n]/).map((entry) => entry.trim()).filter((entry) => entry !== '');

/** What stops the list from being saved, in words; the API checks the same (domain/sms-sender.ts). */
function sendersError(senders: readonly string[]): string | undefined {
  if (senders.length > SMS_SENDERS_MAX) return `At most ${SMS_SENDERS_MAX} senders`;
  const wrong = senders.find((s) => smsSenderForm(s) === null);
  if (wrong !== undefined) return `${wrong}: not a long number (+ and 8 to 15 digits), a short code (3 to 8 digits) or an alphanumeric id (1 to 11 letters, digits and spaces, with a letter)`;
  const twice = senders.find((s, i) => senders.indexOf(s) !== i);
  return twice === undefined ? undefined : `${twice}: listed twice`;
}

function SmsSenders(props: { account: AccountDetails }) {
  const client = useQueryClient();
  const a = props.account;
  const [text, setText] = useState(a.smsSenders.join('\n'));
  useEffect(() => setText(a.smsSenders.join('\n')), [a]);
  const senders = sendersOf(text);
  const error = sendersError(senders);
  const save = useMutation({
    mutationFn: () => updateAccount(a.id, { smsSenders: senders }),
    onSuccess: () => void client.invalidateQueries({ queryKey: operatorKeys.account(a.id) }),
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (error === undefined) save.mutate();
  };
  return (
    <Section title="SMS senders">
      <form onSubmit={submit} noValidate className="form-grid">
        <div className="span-2">
          <TextArea label="Senders, one a line or separated by commas" className="mono" rows={3} value={text} onChange={(e) => setText(e.target.value)}
            hint={<>Long numbers (+34600111222), short codes (12345) or alphanumeric ids (ACME). The first is the default; a send may name another with <code>from</code>. Empty: the service's own sender.</>}
            error={error} />
        </div>
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {save.isSuccess ? <p className="notice span-2" role="status">SMS senders saved.</p> : null}
        <div className="span-2"><button type="submit" className="button" disabled={save.isPending}>Save the SMS senders</button></div>
      </form>
    </Section>
  );
}

function TopUp(props: { id: string }) {
  const client = useQueryClient();
  const [messages, setMessages] = useState('');
  const [balance, setBalance] = useState('');
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const topUp = useMutation({
    mutationFn: (input: TopUpInput) => addToAccount(props.id, input),
    onSuccess: () => {
      setMessages(''); setBalance(''); setReason(''); setTouched(false);
      void client.invalidateQueries({ queryKey: operatorKeys.account(props.id) });
    },
  });
  const messagesError = messages === '' || /^-?[0-9]{1,12}$/.test(messages) ? undefined : 'A whole number (negative to remove)';
  const balanceError = balance === '' || /^-?[0-9]+(\.[0-9]{1,4})?$/.test(balance) ? undefined : 'An amount with at most 4 decimals';
  const reasonError = reason.trim() === '' ? 'Say why: it goes into the ledger' : undefined;
  const nothing = messages === '' && balance === '';
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (messagesError !== undefined || balanceError !== undefined || reasonError !== undefined || nothing) return;
    topUp.mutate({ reason: reason.trim(), ...(messages === '' ? {} : { messages: Number(messages) }), ...(balance === '' ? {} : { balance: Number(balance) }) });
  };
  return (
    <Section title="Top up">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label="Messages to add" inputMode="numeric" value={messages} onChange={(e) => setMessages(e.target.value)} error={messagesError} />
        <TextField label="Balance to add" inputMode="decimal" value={balance} onChange={(e) => setBalance(e.target.value)} error={balanceError} />
        <div className="span-2"><TextField label="Reason" value={reason} onChange={(e) => setReason(e.target.value)} error={touched ? reasonError : undefined} placeholder="invoice 2026-118" /></div>
        {touched && nothing ? <p className="field-error span-2">Give messages, balance or both.</p> : null}
        {topUp.isError ? <div className="span-2"><ErrorNotice error={topUp.error} /></div> : null}
        {topUp.isSuccess ? <p className="notice span-2" role="status">Added, and written to the ledger.</p> : null}
        <div className="span-2"><button type="submit" className="button" disabled={topUp.isPending}>Top up</button></div>
      </form>
    </Section>
  );
}

function AccountUsers(props: { id: string }) {
  const client = useQueryClient();
  const users = useQuery(accountUsersQuery(props.id));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('owner');
  const [invited, setInvited] = useState<UserInvited | undefined>();
  const invite = useMutation({
    mutationFn: () => inviteAccountUser(props.id, email.trim(), role),
    onSuccess: (result) => {
      setInvited(result);
      setEmail('');
      void client.invalidateQueries({ queryKey: operatorKeys.users(props.id) });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (email.trim() !== '') invite.mutate();
  };
  return (
    <Section title="Users">
      <QueryState query={users} isEmpty={(d) => d.users.length === 0} empty={<p className="muted">No users yet: invite the first owner.</p>}>
        {(data) => (
          <DataTable rows={data.users} rowKey={(u) => u.user_id} columns={[
            { header: 'User', cell: (u) => u.email },
            { header: 'Role', cell: (u) => u.role },
            { header: 'State', cell: (u) => <StatusBadge status={u.status} /> },
            { header: 'Last sign-in', cell: (u) => <Time iso={u.last_sign_in_at} fallback="never" /> },
          ]} />
        )}
      </QueryState>
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label="Invite by email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
        </SelectField>
        {invite.isError ? <div className="span-2"><ErrorNotice error={invite.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={invite.isPending || email.trim() === ''}>Invite</button></div>
      </form>
      <InvitationLink invited={invited} onClose={() => setInvited(undefined)} />
    </Section>
  );
}
