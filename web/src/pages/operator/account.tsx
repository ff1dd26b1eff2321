import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { CHANNELS } from '@herald/domain/account.ts';
import { SMS_SENDERS_MAX, smsSenderForm } from '@herald/domain/sms-sender.ts';
import { operatorAccountQuery, accountUsersQuery, inviteAccountUser, operatorKeys, updateAccount } from '../../api/operator/accounts.ts';
import type { AccountDetails, AllowListAppliesTo, Channel, UserInvited } from '../../api/types.ts';
import { DataTable } from '../../components/data-table.tsx';
import { CheckboxGroup, SelectField, TextArea, TextField } from '../../components/field.tsx';
import { Page, Section } from '../../components/page.tsx';
import { ErrorNotice, QueryState } from '../../components/query-state.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { Time } from '../../components/time.tsx';
import { channelName, formatCount, formatMoney } from '../../lib/format.ts';
import { useFocusOn } from '../../lib/use-focus-on.ts';
import { AppliesToField, useEntryError } from '../ip-allow-list-editor.tsx';
import { InvitationLink, InviteRoleField, pendingAt, roleToSend, type RoleChoice } from '../users.tsx';
import { AccountKeys } from './account-keys.tsx';
import { AccountLedger } from './account-ledger.tsx';
import { AccountWhatsappTemplates } from './account-whatsapp-templates.tsx';

export default function OperatorAccountPage() {
  const { t } = useTranslation('operator');
  const id = useParams().id ?? '';
  const account = useQuery(operatorAccountQuery(id));
  return (
    <Page title={account.data?.name ?? t('account.title')} description={<Link to="/operator">{t('account.back')}</Link>}>
      <QueryState query={account}>
        {(a) => (
          <>
            <Section title={t('account.state')} id="state">
              <dl className="facts">
                <div><dt>{t('account.id')}</dt><dd><code>{a.id}</code></dd></div>
                <div><dt>{t('account.stateLabel')}</dt><dd><StatusBadge status={a.active ? 'active' : 'inactive'} /></dd></div>
                <div><dt>{t('account.messagesLeft')}</dt><dd>{formatCount(a.messagesLeft)}</dd></div>
                <div><dt>{t('account.balance')}</dt><dd>{formatMoney(a.balance)}</dd></div>
                <div><dt>{t('account.opened')}</dt><dd><Time iso={a.createdAt} /></dd></div>
                <div>
                  <dt>{t('account.domains')}</dt>
                  <dd>{a.domains.length === 0 ? t('account.noDomains') : a.domains.map((d) => (d.verified ? d.domain : t('account.unverifiedDomain', { domain: d.domain }))).join(', ')}</dd>
                </div>
              </dl>
            </Section>
            <Settings account={a} />
            <AllowList account={a} />
            <AccountKeys account={a} />
            <AccountLedger id={a.id} />
            <AccountWhatsappTemplates id={a.id} />
            <SmsSenders account={a} />
            <AccountUsers id={a.id} />
          </>
        )}
      </QueryState>
    </Page>
  );
}

/** A save's "done" line: shown and focused after each save, so the keyboard stays with the form's outcome. */
function useSaved(): { count: number; saved: () => void; reset: () => void; ref: ReturnType<typeof useFocusOn<HTMLParagraphElement>> } {
  const [count, setCount] = useState(0);
  const ref = useFocusOn<HTMLParagraphElement>(count === 0 ? undefined : count);
  return { count, saved: () => setCount((n) => n + 1), reset: () => setCount(0), ref };
}

function Settings(props: { account: AccountDetails }) {
  const { t } = useTranslation('operator');
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
  const done = useSaved();
  const save = useMutation({
    mutationFn: () => updateAccount(a.id, {
      active, rateLimitPerSecond: Number(rate), whatsappPrice: price, services: Object.fromEntries(CHANNELS.map((c) => [c, services.includes(c)])),
    }),
    onSuccess: async () => { await client.invalidateQueries({ queryKey: operatorKeys.account(a.id) }); done.saved(); },
  });
  const rateError = /^[0-9]+$/.test(rate) && Number(rate) >= 1 ? undefined : t('settings.rateInvalid');
  const priceError = /^[0-9]+(\.[0-9]{1,4})?$/.test(price) ? undefined : t('settings.priceInvalid');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    done.reset();
    if (rateError === undefined && priceError === undefined) save.mutate();
  };
  return (
    <Section title={t('settings.title')} id="settings">
      <form onSubmit={submit} noValidate className="form-grid">
        <SelectField label={t('settings.sending')} value={active ? 'active' : 'inactive'} onChange={(e) => setActive(e.target.value === 'active')} hint={t('settings.sendingHint')}>
          <option value="active">{t('settings.active')}</option>
          <option value="inactive">{t('settings.inactive')}</option>
        </SelectField>
        <TextField label={t('settings.rate')} inputMode="numeric" value={rate} onChange={(e) => setRate(e.target.value)} error={rateError} />
        <TextField label={t('settings.price')} inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} error={priceError} />
        <CheckboxGroup legend={t('settings.channels')} options={CHANNELS.map((c) => ({ value: c, label: channelName(c) }))} value={services} onChange={setServices} />
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {done.count > 0 ? <p className="notice span-2" role="status" tabIndex={-1} ref={done.ref}>{t('settings.saved')}</p> : null}
        <div className="span-2"><button type="submit" className="button" disabled={save.isPending}>{t('settings.save')}</button></div>
      </form>
    </Section>
  );
}

/** One entry a line, blank lines ignored. */
const entriesOf = (text: string): string[] => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');

// The operator's way back in for an account whose people saved themselves out of the
// web application: no check of the operator's own address, which the list never binds.
function AllowList(props: { account: AccountDetails }) {
  const { t } = useTranslation('operator');
  const entryError = useEntryError();
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
  const done = useSaved();
  const save = useMutation({
    mutationFn: () => updateAccount(a.id, { ipAllowList: entries, allowListAppliesTo: appliesTo }),
    onSuccess: async () => { await client.invalidateQueries({ queryKey: operatorKeys.account(a.id) }); done.saved(); },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    done.reset();
    if (wrong === undefined) save.mutate();
  };
  return (
    <Section title={t('allowList.title')} id="allow-list">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextArea label={t('allowList.entries')} className="mono" rows={4} value={text} onChange={(e) => setText(e.target.value)}
          hint={t('allowList.emptyHint')} error={wrong === undefined ? undefined : `${wrong[0]}: ${wrong[1] ?? ''}`} />
        <AppliesToField value={appliesTo} onChange={setAppliesTo} />
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {done.count > 0 ? (
          <p className="notice span-2" role="status" tabIndex={-1} ref={done.ref}>
            {a.ipAllowList.length === 0 ? t('allowList.savedEmpty') : t('allowList.saved')}
          </p>
        ) : null}
        <div className="span-2"><button type="submit" className="button" disabled={save.isPending}>{t('allowList.save')}</button></div>
      </form>
    </Section>
  );
}

/** Entries separated by commas or line breaks; spaces around them and empty ones dropped (an alphanumeric id keeps its inner spaces). */
const sendersOf = (text: string): string[] => text.split(/[,\n]/).map((entry) => entry.trim()).filter((entry) => entry !== '');

function SmsSenders(props: { account: AccountDetails }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const a = props.account;
  const [text, setText] = useState(a.smsSenders.join('\n'));
  useEffect(() => setText(a.smsSenders.join('\n')), [a]);
  const senders = sendersOf(text);
  // What stops the list from being saved, in words; the API checks the same (domain/sms-sender.ts).
  const wrong = senders.find((s) => smsSenderForm(s) === null);
  const twice = senders.find((s, i) => senders.indexOf(s) !== i);
  const error = senders.length > SMS_SENDERS_MAX ? t('sms.tooMany', { max: SMS_SENDERS_MAX })
    : wrong !== undefined ? t('sms.invalid', { sender: wrong })
      : twice !== undefined ? t('sms.twice', { sender: twice }) : undefined;
  const done = useSaved();
  const save = useMutation({
    mutationFn: () => updateAccount(a.id, { smsSenders: senders }),
    onSuccess: async () => { await client.invalidateQueries({ queryKey: operatorKeys.account(a.id) }); done.saved(); },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    done.reset();
    if (error === undefined) save.mutate();
  };
  return (
    <Section title={t('sms.title')} id="sms-senders">
      <form onSubmit={submit} noValidate className="form-grid">
        <div className="span-2">
          <TextArea label={t('sms.label')} className="mono" rows={3} value={text} onChange={(e) => setText(e.target.value)} hint={t('sms.hint')} error={error} />
        </div>
        {save.isError ? <div className="span-2"><ErrorNotice error={save.error} /></div> : null}
        {done.count > 0 ? <p className="notice span-2" role="status" tabIndex={-1} ref={done.ref}>{t('sms.saved')}</p> : null}
        <div className="span-2"><button type="submit" className="button" disabled={save.isPending}>{t('sms.save')}</button></div>
      </form>
    </Section>
  );
}

function AccountUsers(props: { id: string }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const users = useQuery(accountUsersQuery(props.id));
  const [email, setEmail] = useState('');
  // Unchosen: someone invited before keeps their role; someone new is invited as owner (an account's first user, typically).
  const [chosen, setRole] = useState<RoleChoice | undefined>();
  const [invited, setInvited] = useState<UserInvited | undefined>();
  const emailRef = useRef<HTMLInputElement>(null);
  const pending = pendingAt(users.data?.users, email);
  const role = chosen ?? (pending === undefined ? 'owner' : 'keep');
  const invite = useMutation({
    mutationFn: () => inviteAccountUser(props.id, email.trim(), roleToSend(pending, role)),
    onSuccess: (result) => {
      setInvited(result);
      setEmail('');
      setRole(undefined);
      void client.invalidateQueries({ queryKey: operatorKeys.users(props.id) });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (email.trim() !== '') invite.mutate();
  };
  return (
    <Section title={t('users.title')} id="users">
      <QueryState query={users} isEmpty={(d) => d.users.length === 0} empty={<p className="muted">{t('users.empty')}</p>}>
        {(data) => (
          <DataTable rows={data.users} rowKey={(u) => u.user_id} columns={[
            { header: t('users.user'), cell: (u) => u.email },
            { header: t('users.role'), cell: (u) => u.role },
            { header: t('users.state'), cell: (u) => <StatusBadge status={u.status} /> },
            { header: t('users.lastSignIn'), cell: (u) => <Time iso={u.last_sign_in_at} fallback={t('users.never')} /> },
          ]} />
        )}
      </QueryState>
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField ref={emailRef} label={t('users.inviteByEmail')} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        <InviteRoleField pending={pending} value={role} onChange={setRole} />
        {invite.isError ? <div className="span-2"><ErrorNotice error={invite.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={invite.isPending || email.trim() === ''}>{t('users.invite')}</button></div>
      </form>
      <InvitationLink invited={invited} onClose={() => setInvited(undefined)} finalFocus={emailRef} />
    </Section>
  );
}
