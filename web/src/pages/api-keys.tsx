import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { apiKeyKeys, apiKeysQuery, createApiKey, revokeApiKey } from '../api/keys.ts';
import { allows, useSession } from '../api/session.ts';
import type { ApiKeyCreated, ApiKeyListed, KeyScope, NewApiKeyInput } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { DataTable } from '../components/data-table.tsx';
import { CheckboxGroup, SelectField, TextField } from '../components/field.tsx';
import { ConfirmDialog, Modal } from '../components/dialog.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';
import { isoFromLocalInput } from '../lib/format.ts';
import { IpAllowListEditor } from './ip-allow-list-editor.tsx';
import { SmtpSettingsSection } from './smtp-settings-section.tsx';

const SCOPES: readonly { value: KeyScope; label: string }[] = [
  { value: 'email', label: 'email' },
  { value: 'sms', label: 'sms' },
  { value: 'whatsapp', label: 'whatsapp' },
  { value: 'webhooks', label: 'webhooks' },
  { value: 'account', label: 'account (keys, users, usage)' },
];

function keyState(key: ApiKeyListed): string {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) return 'expired';
  return 'active';
}

export default function ApiKeysPage() {
  const session = useSession();
  const role = session.data?.user.role ?? 'viewer';
  const keys = useQuery(apiKeysQuery);
  return (
    <Page title="API keys" description="Keys authenticate API requests (Authorization: Bearer …). A key is shown once, when it is made.">
      {allows(role, 'write') ? <CreateKey /> : <p className="notice">Your role ({role}) can see the keys but not create or revoke them.</p>}
      <Section title="Keys">
        <QueryState query={keys} isEmpty={(data) => data.api_keys.length === 0} empty={<Empty title="No keys yet">Create one above to start sending.</Empty>}>
          {(data) => <KeyTable keys={data.api_keys} canRevoke={allows(role, 'write')} />}
        </QueryState>
      </Section>
      <SmtpSettingsSection />
      <IpAllowListEditor canEdit={allows(role, 'owner')} />
    </Page>
  );
}

function CreateKey() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<KeyScope[]>(['email']);
  const [expiry, setExpiry] = useState('');
  const [mode, setMode] = useState<'live' | 'test'>('live');
  const [touched, setTouched] = useState(false);
  const [created, setCreated] = useState<ApiKeyCreated | undefined>();
  const create = useMutation({
    mutationFn: (input: NewApiKeyInput) => createApiKey(input),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      setExpiry('');
      void client.invalidateQueries({ queryKey: apiKeyKeys.all });
    },
  });
  const expiresAt = isoFromLocalInput(expiry);
  const nameError = name.trim() === '' ? 'Give the key a name, such as where it is used' : undefined;
  const scopeError = scopes.length === 0 ? 'Choose at least one scope' : undefined;
  const expiryError = expiry !== '' && (expiresAt === undefined || Date.parse(expiresAt) <= Date.now()) ? 'The expiry must be in the future' : undefined;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (nameError !== undefined || scopeError !== undefined || expiryError !== undefined) return;
    create.mutate({ name: name.trim(), scopes, mode, ...(expiresAt === undefined ? {} : { expires_at: expiresAt }) });
  };
  return (
    <Section title="Create a key">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} placeholder="production server" error={touched ? nameError : undefined} maxLength={100} />
        <TextField label="Expires (optional)" type="datetime-local" value={expiry} onChange={(e) => setExpiry(e.target.value)}
          hint="Your local time. Leave empty for a key that does not expire." error={touched ? expiryError : undefined} />
        <SelectField label="Mode" value={mode} onChange={(e) => setMode(e.target.value === 'test' ? 'test' : 'live')}
          hint="A test key (it starts test_) sends nothing anywhere and is never billed: its messages are captured and listed apart.">
          <option value="live">Live</option>
          <option value="test">Test</option>
        </SelectField>
        <div className="span-2">
          <CheckboxGroup legend="Scopes" options={SCOPES} value={scopes} onChange={setScopes} hint="What the key may do. A key can never make a key with more than it has." />
          {touched && scopeError !== undefined ? <p className="field-error">{scopeError}</p> : null}
        </div>
        {create.isError ? <div className="span-2"><ErrorNotice error={create.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={create.isPending}>Create key</button></div>
      </form>
      <Modal open={created !== undefined} onClose={() => setCreated(undefined)} title="Your new API key">
        {created === undefined ? null : (
          <div className="dialog-body">
            <p><strong>Copy it now:</strong> herald keeps only its hash and will not show it again.</p>
            <CopyValue value={created.api_key} label="the API key" />
            <p className="hint">{created.mode === 'test' ? 'Test key' : 'Key'} “{created.name}”, scopes {created.scopes.join(', ')}{created.expires_at === null ? ', no expiry' : <>, expires <Time iso={created.expires_at} /></>}.</p>
            <div className="dialog-actions"><button type="button" className="button" onClick={() => setCreated(undefined)}>I have copied it</button></div>
          </div>
        )}
      </Modal>
    </Section>
  );
}

function KeyTable(props: { keys: readonly ApiKeyListed[]; canRevoke: boolean }) {
  const client = useQueryClient();
  const [revoking, setRevoking] = useState<ApiKeyListed | undefined>();
  const revoke = useMutation({
    mutationFn: (key: ApiKeyListed) => revokeApiKey(key.key_id),
    onSuccess: () => {
      setRevoking(undefined);
      void client.invalidateQueries({ queryKey: apiKeyKeys.all });
    },
  });
  return (
    <>
      <DataTable rows={props.keys} rowKey={(key) => key.key_id} columns={[
        { header: 'Name', cell: (key) => <>{key.name}{key.mode === 'test' ? <> <StatusBadge status="test" /></> : null}<div className="muted mono small">{key.key_id}</div></> },
        { header: 'Scopes', cell: (key) => key.scopes.join(', ') },
        { header: 'Created', cell: (key) => <Time iso={key.created_at} /> },
        { header: 'Last used', cell: (key) => (key.last_used_at === null ? <span className="muted">never</span> : <><Time iso={key.last_used_at} /><div className="muted mono small">{key.last_used_ip}</div></>) },
        { header: 'Expires', cell: (key) => <Time iso={key.expires_at} fallback="never" /> },
        { header: 'State', cell: (key) => <StatusBadge status={keyState(key)} /> },
        props.canRevoke && { header: 'Actions', hiddenHeader: true, cell: (key) => (keyState(key) === 'revoked' ? null
          : <button type="button" className="button small danger" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>Revoke</button>) },
      ]} />
      <ConfirmDialog open={revoking !== undefined} onClose={() => { setRevoking(undefined); revoke.reset(); }} title="Revoke this key?"
        confirmLabel="Revoke key" danger busy={revoke.isPending} onConfirm={() => revoking !== undefined && revoke.mutate(revoking)}>
        <p>Requests with “{revoking?.name}” will be refused from now on. This cannot be undone.</p>
        {revoke.isError ? <ErrorNotice error={revoke.error} /> : null}
      </ConfirmDialog>
    </>
  );
}
