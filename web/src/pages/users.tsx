import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
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

export const ROLES: readonly { value: Role; label: string }[] = [
  { value: 'owner', label: 'owner — everything, including users and keys' },
  { value: 'developer', label: 'developer — sends, templates, domains, webhooks' },
  { value: 'viewer', label: 'viewer — reads, changes nothing' },
];

export default function UsersPage() {
  const session = useSession();
  const isOwner = allows(session.data?.user.role ?? 'viewer', 'owner');
  const users = useQuery({ ...usersQuery, enabled: isOwner });
  if (!isOwner) return <Page title="Users"><p className="notice">Only an owner manages the account's users.</p></Page>;
  return (
    <Page title="Users" description="Who can sign in to this account, with which role.">
      <InviteUser />
      <Section title="People">
        <QueryState query={users}>{(data) => <UserTable users={data.users} me={session.data?.user.user_id ?? ''} />}</QueryState>
      </Section>
    </Page>
  );
}

/** The link of a new invitation; says whether herald emailed it (no claim of an email when herald has no sender). */
export function InvitationLink(props: { invited: UserInvited | undefined; onClose: () => void }) {
  const invited = props.invited;
  return (
    <Modal open={invited !== undefined} onClose={props.onClose} title={invited?.email_sent === false ? 'Invitation made, not emailed' : 'Invitation sent'}>
      {invited === undefined ? null : (
        <div className="dialog-body">
          {invited.email_sent
            ? <p>{invited.email} is invited as {invited.role}, and herald emailed them this link. You may also send it yourself; it works once, until <time dateTime={invited.invitation_expires_at}>{new Date(invited.invitation_expires_at).toLocaleString()}</time>.</p>
            : <p className="notice" role="status">{invited.email} is invited as {invited.role}, but herald has no sender for email, so nothing was emailed: send them this link yourself. It works once, until <time dateTime={invited.invitation_expires_at}>{new Date(invited.invitation_expires_at).toLocaleString()}</time>.</p>}
          <CopyValue value={invited.invitation_url} label="the invitation link" />
          <div className="dialog-actions"><button type="button" className="button" onClick={props.onClose}>Done</button></div>
        </div>
      )}
    </Modal>
  );
}

function InviteUser() {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [invited, setInvited] = useState<UserInvited | undefined>();
  const invite = useMutation({
    mutationFn: () => inviteUser(email.trim(), role),
    onSuccess: (result) => {
      setInvited(result);
      setEmail('');
      void client.invalidateQueries({ queryKey: userKeys.all });
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (email.trim() !== '') invite.mutate();
  };
  return (
    <Section title="Invite someone">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
        </SelectField>
        {invite.isError ? <div className="span-2"><ErrorNotice error={invite.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={invite.isPending || email.trim() === ''}>Send invitation</button></div>
      </form>
      <InvitationLink invited={invited} onClose={() => setInvited(undefined)} />
    </Section>
  );
}

function UserTable(props: { users: readonly AccountUser[]; me: string }) {
  const client = useQueryClient();
  const [removing, setRemoving] = useState<AccountUser | undefined>();
  const refresh = (): void => void client.invalidateQueries({ queryKey: userKeys.all });
  const roleChange = useMutation({
    mutationFn: (change: { user: AccountUser; role: Role }) => changeRole(change.user.user_id, change.role),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (user: AccountUser) => removeUser(user.user_id),
    onSuccess: () => { setRemoving(undefined); refresh(); },
  });
  return (
    <>
      {roleChange.isError ? <ErrorNotice error={roleChange.error} /> : null}
      <DataTable rows={props.users} rowKey={(u) => u.user_id} columns={[
        { header: 'User', cell: (u) => <>{u.email}{u.user_id === props.me ? <span className="muted"> (you)</span> : null}{u.totp_enabled ? <div className="small muted">two-factor on</div> : null}</> },
        { header: 'Role', cell: (u) => (
          <>
            <label className="visually-hidden" htmlFor={`role-${u.user_id}`}>Role of {u.email}</label>
            <select id={`role-${u.user_id}`} value={u.role} disabled={roleChange.isPending} onChange={(e) => roleChange.mutate({ user: u, role: e.target.value as Role })}>
              {ROLES.map((r) => <option key={r.value} value={r.value}>{r.value}</option>)}
            </select>
          </>
        ) },
        { header: 'State', cell: (u) => <StatusBadge status={u.status} /> },
        { header: 'Signed in now', cell: (u) => (u.active_sessions > 0 ? `yes, ${u.active_sessions} session${u.active_sessions === 1 ? '' : 's'}` : <span className="muted">no</span>) },
        { header: 'Last sign-in', cell: (u) => <Time iso={u.last_sign_in_at} fallback="never" /> },
        { header: 'Actions', hiddenHeader: true, cell: (u) => <button type="button" className="button small danger" onClick={() => setRemoving(u)} aria-label={`Remove ${u.email}`}>Remove</button> },
      ]} />
      <ConfirmDialog open={removing !== undefined} onClose={() => { setRemoving(undefined); remove.reset(); }} title="Remove this user?" confirmLabel="Remove user" danger
        busy={remove.isPending} onConfirm={() => removing !== undefined && remove.mutate(removing)}>
        <p>{removing?.email} loses access at once; their sessions end in every browser.</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
    </>
  );
}
