import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { allows, useSession } from '../api/session.ts';
import type { AccountUser, Role, UserInvited } from '../api/types.ts';
import { changeRole, inviteUser, removeUser, userKeys, usersQuery } from '../api/users.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { DataTable } from '../components/data-table.tsx';
import { ConfirmDialog, Modal } from '../components/dialog.tsx';
import { SelectField, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { localTime } from '../lib/format.ts';
import { useFocusOn } from '../lib/use-focus-on.ts';

const ROLE_VALUES: readonly Role[] = ['owner', 'developer', 'viewer'];

/** The roles with what each may do, in the page's language (the console's invitations use them too). */
export function useRoleOptions(): { value: Role; label: string }[] {
  const { t } = useTranslation('team');
  const said: Record<Role, string> = { owner: t('roles.owner'), developer: t('roles.developer'), viewer: t('roles.viewer') };
  return ROLE_VALUES.map((value) => ({ value, label: said[value] }));
}

/** A role as chosen in an invitation: one of the roles, or keep the role of someone invited before. */
export type RoleChoice = Role | 'keep';

/** The person already invited (not yet accepted) at this address, whose role a new invitation keeps unless changed. */
export const pendingAt = (users: readonly AccountUser[] | undefined, email: string): AccountUser | undefined =>
  users?.find((u) => u.status === 'invited' && u.email === email.trim().toLowerCase());

/**
 * The role select of an invitation form: for someone invited before, its first choice
 * keeps their role, chosen unless the inviter changes it on purpose.
 */
export function InviteRoleField(props: { pending: AccountUser | undefined; value: RoleChoice; onChange: (value: RoleChoice) => void }) {
  const { t } = useTranslation('team');
  const roles = useRoleOptions();
  // Keep means nothing for someone new: the form then shows (and sends) developer.
  const value = props.pending === undefined && props.value === 'keep' ? 'developer' : props.value;
  return (
    <SelectField label={t('invite.role')} value={value} onChange={(e) => props.onChange(e.target.value as RoleChoice)}
      hint={props.pending === undefined ? undefined : t('invite.pendingHint', { email: props.pending.email, role: props.pending.role })}>
      {props.pending === undefined ? null : <option value="keep">{t('invite.keepRole', { role: props.pending.role })}</option>}
      {roles.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
    </SelectField>
  );
}

/** What an invitation sends as its role: none to keep a pending person's. */
export const roleToSend = (pending: AccountUser | undefined, choice: RoleChoice): Role | undefined =>
  (choice === 'keep' ? (pending === undefined ? 'developer' : undefined) : choice);

export default function UsersPage() {
  const { t } = useTranslation('team');
  const session = useSession();
  const isOwner = allows(session.data?.user.role ?? 'viewer', 'owner');
  const users = useQuery({ ...usersQuery, enabled: isOwner });
  if (!isOwner) return <Page title={t('title')}><p className="notice">{t('ownerOnly')}</p></Page>;
  return (
    <Page title={t('title')} description={t('lede')}>
      <InviteUser users={users.data?.users} />
      <Section title={t('people.title')} id="people">
        <QueryState query={users}>{(data) => <UserTable users={data.users} me={session.data?.user.user_id ?? ''} />}</QueryState>
      </Section>
    </Page>
  );
}

/** The link of a new invitation; says whether herald emailed it (no claim of an email when herald has no sender). */
export function InvitationLink(props: { invited: UserInvited | undefined; onClose: () => void; finalFocus?: RefObject<HTMLElement | null> }) {
  const { t } = useTranslation('team');
  const invited = props.invited;
  const until = invited === undefined ? '' : localTime(invited.invitation_expires_at);
  return (
    <Modal open={invited !== undefined} onClose={props.onClose} {...(props.finalFocus === undefined ? {} : { finalFocus: props.finalFocus })} title={invited?.email_sent === false ? t('invitation.notEmailedTitle') : t('invitation.sentTitle')}>
      {invited === undefined ? null : (
        <div className="dialog-body">
          {invited.email_sent
            ? <p>{t('invitation.emailed', { email: invited.email, role: invited.role, until })}</p>
            : <p className="notice" role="status">{t('invitation.notEmailed', { email: invited.email, role: invited.role, until })}</p>}
          <CopyValue value={invited.invitation_url} label={t('invitation.copyLabel')} />
          <div className="dialog-actions"><button type="button" className="button" onClick={props.onClose}>{t('invitation.done')}</button></div>
        </div>
      )}
    </Modal>
  );
}

function InviteUser(props: { users: readonly AccountUser[] | undefined }) {
  const { t } = useTranslation('team');
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  // Unchosen: someone invited before keeps their role; someone new is invited as developer.
  const [chosen, setRole] = useState<RoleChoice | undefined>();
  const [invited, setInvited] = useState<UserInvited | undefined>();
  // Back to the emptied address field once the link is taken: the Send button is disabled then.
  const emailRef = useRef<HTMLInputElement>(null);
  const pending = pendingAt(props.users, email);
  const role = chosen ?? (pending === undefined ? 'developer' : 'keep');
  const invite = useMutation({
    mutationFn: () => inviteUser(email.trim(), roleToSend(pending, role)),
    onSuccess: (result) => {
      setInvited(result);
      setEmail('');
      setRole(undefined);
      void client.invalidateQueries({ queryKey: userKeys.all });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (email.trim() !== '') invite.mutate();
  };
  return (
    <Section title={t('invite.title')} id="invite">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField ref={emailRef} label={t('invite.email')} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        <InviteRoleField pending={pending} value={role} onChange={setRole} />
        {invite.isError ? <div className="span-2"><ErrorNotice error={invite.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={invite.isPending || email.trim() === ''}>{t('invite.submit')}</button></div>
      </form>
      <InvitationLink invited={invited} onClose={() => setInvited(undefined)} finalFocus={emailRef} />
    </Section>
  );
}

/**
 * A user's role: chosen in the select, saved only with its button (arrow keys through the
 * select change nothing), and said in a status line. The button stays where it is, so
 * focus stays on it.
 */
function RoleCell(props: { user: AccountUser; onSaved: (user: AccountUser, role: Role) => void }) {
  const { t } = useTranslation('team');
  const client = useQueryClient();
  const [draft, setDraft] = useState<Role>(props.user.role);
  useEffect(() => setDraft(props.user.role), [props.user.role]);
  const save = useMutation({
    mutationFn: (role: Role) => changeRole(props.user.user_id, role),
    onSuccess: async (_, role) => {
      await client.invalidateQueries({ queryKey: userKeys.all });
      props.onSaved(props.user, role);
    },
  });
  const unchanged = draft === props.user.role;
  const id = `role-${props.user.user_id}`;
  return (
    <div className="row">
      <label className="visually-hidden" htmlFor={id}>{t('people.roleOf', { email: props.user.email })}</label>
      <select id={id} value={draft} onChange={(e) => { save.reset(); setDraft(e.target.value as Role); }}>
        {ROLE_VALUES.map((r) => <option key={r} value={r}>{r}</option>)}
      </select>
      <button type="button" className="button small secondary" aria-disabled={unchanged || save.isPending}
        aria-label={t('people.saveRoleOf', { email: props.user.email })}
        onClick={() => { if (!unchanged && !save.isPending) save.mutate(draft); }}>{t('people.saveRole')}</button>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
    </div>
  );
}

function UserTable(props: { users: readonly AccountUser[]; me: string }) {
  const { t } = useTranslation('team');
  const client = useQueryClient();
  const [removing, setRemoving] = useState<AccountUser | undefined>();
  const [removed, setRemoved] = useState<AccountUser | undefined>();
  const [changed, setChanged] = useState<{ email: string; role: Role } | undefined>();
  const remove = useMutation({
    mutationFn: (user: AccountUser) => removeUser(user.user_id),
    onSuccess: async (_, user) => {
      setRemoving(undefined);
      await client.invalidateQueries({ queryKey: userKeys.all });
      setRemoved(user);
    },
  });
  const removedRef = useFocusOn<HTMLParagraphElement>(removed);
  return (
    <>
      {/* Always there, so screen readers hear each change; the focus stays on the Save button used. */}
      <p className={changed === undefined ? 'visually-hidden' : 'notice'} role="status">
        {changed === undefined ? '' : t('people.roleSaved', { email: changed.email, role: changed.role })}
      </p>
      {removed === undefined ? null : <p className="notice" role="status" tabIndex={-1} ref={removedRef}>{t('people.removed', { email: removed.email })}</p>}
      <DataTable rows={props.users} rowKey={(u) => u.user_id} columns={[
        { header: t('people.user'), cell: (u) => <>{u.email}{u.user_id === props.me ? <span className="muted"> {t('people.you')}</span> : null}{u.totp_enabled ? <div className="small muted">{t('people.twoFactor')}</div> : null}</> },
        { header: t('people.role'), cell: (u) => <RoleCell user={u} onSaved={(user, role) => setChanged({ email: user.email, role })} /> },
        { header: t('people.state'), cell: (u) => <StatusBadge status={u.status} /> },
        { header: t('people.signedIn'), cell: (u) => (u.active_sessions > 0 ? t('people.sessions', { count: u.active_sessions }) : <span className="muted">{t('people.no')}</span>) },
        { header: t('people.lastSignIn'), cell: (u) => <Time iso={u.last_sign_in_at} fallback={t('people.never')} /> },
        { header: t('people.actions'), hiddenHeader: true, cell: (u) => <button type="button" className="button small danger" onClick={() => { setRemoved(undefined); setRemoving(u); }} aria-label={t('people.removeNamed', { email: u.email })}>{t('people.remove')}</button> },
      ]} />
      <ConfirmDialog open={removing !== undefined} onClose={() => { setRemoving(undefined); remove.reset(); }} title={t('remove.title')} confirmLabel={t('remove.confirm')} danger
        busy={remove.isPending} onConfirm={() => removing !== undefined && remove.mutate(removing)}>
        <p>{t('remove.body', { email: removing?.email ?? '' })}</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
    </>
  );
}
