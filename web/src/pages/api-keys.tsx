import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { grantableScopes } from '@herald/domain/grantable-scopes.ts';
import { KEY_NAME_MAX } from '@herald/domain/text-limits.ts';
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
import { useFocusOn } from '../lib/use-focus-on.ts';
import { IpAllowListEditor } from './ip-allow-list-editor.tsx';
import { SmtpSettingsSection } from './smtp-settings-section.tsx';

function keyState(key: ApiKeyListed): string {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) return 'expired';
  return 'active';
}

/** The scopes as the key forms offer them, `account` said in words (shared with the operator console). */
export function useScopeOptions(scopes: readonly KeyScope[]): { value: KeyScope; label: string }[] {
  const { t } = useTranslation('keys');
  return scopes.map((scope) => ({ value: scope, label: scope === 'account' ? t('scopes.account') : scope }));
}

export default function ApiKeysPage() {
  const { t } = useTranslation('keys');
  const session = useSession();
  const role = session.data?.user.role ?? 'viewer';
  const keys = useQuery(apiKeysQuery);
  return (
    <Page title={t('title')} description={t('lede')}>
      {allows(role, 'write') ? <CreateKey isOwner={allows(role, 'owner')} /> : <p className="notice">{t('readOnly', { role })}</p>}
      <Section title={t('list.title')} id="keys">
        <QueryState query={keys} isEmpty={(data) => data.api_keys.length === 0} empty={<Empty title={t('list.emptyTitle')}>{t('list.empty')}</Empty>}>
          {(data) => <KeyTable keys={data.api_keys} canRevoke={allows(role, 'write')} />}
        </QueryState>
      </Section>
      <SmtpSettingsSection />
      <IpAllowListEditor canEdit={allows(role, 'owner')} />
    </Page>
  );
}

function CreateKey(props: { isOwner: boolean }) {
  const { t } = useTranslation('keys');
  const client = useQueryClient();
  // Only what the caller's role may hand out: the server's own rule (domain/grantable-scopes.ts).
  const scopeOptions = useScopeOptions(grantableScopes(props.isOwner));
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<KeyScope[]>(['email']);
  const [expiry, setExpiry] = useState('');
  const [mode, setMode] = useState<'live' | 'test'>('live');
  const [touched, setTouched] = useState(false);
  const [created, setCreated] = useState<ApiKeyCreated | undefined>();
  // Once the key is copied, back to the emptied name field for the next one.
  const nameRef = useRef<HTMLInputElement>(null);
  const create = useMutation({
    mutationFn: (input: NewApiKeyInput) => createApiKey(input),
    onSuccess: (key) => {
      setCreated(key);
      // The emptied form is a fresh one: no error until it is submitted again.
      setName('');
      setExpiry('');
      setTouched(false);
      void client.invalidateQueries({ queryKey: apiKeyKeys.all });
    },
  });
  const expiresAt = isoFromLocalInput(expiry);
  const nameError = name.trim() === '' ? t('create.nameMissing') : undefined;
  const scopeError = scopes.length === 0 ? t('create.scopeMissing') : undefined;
  const expiryError = expiry !== '' && (expiresAt === undefined || Date.parse(expiresAt) <= Date.now()) ? t('create.expiryPast') : undefined;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (nameError !== undefined || scopeError !== undefined || expiryError !== undefined) return;
    create.mutate({ name: name.trim(), scopes, mode, ...(expiresAt === undefined ? {} : { expires_at: expiresAt }) });
  };
  return (
    <Section title={t('create.title')} id="create-a-key">
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField ref={nameRef} label={t('create.name')} value={name} onChange={(e) => setName(e.target.value)} placeholder={t('create.namePlaceholder')}
          error={touched ? nameError : undefined} maxLength={KEY_NAME_MAX} hint={t('create.nameLimit', { used: name.length, max: KEY_NAME_MAX })} />
        <TextField label={t('create.expires')} type="datetime-local" value={expiry} onChange={(e) => setExpiry(e.target.value)}
          hint={t('create.expiresHint')} error={touched ? expiryError : undefined} />
        <SelectField label={t('create.mode')} value={mode} onChange={(e) => setMode(e.target.value === 'test' ? 'test' : 'live')} hint={t('create.modeHint')}>
          <option value="live">{t('create.live')}</option>
          <option value="test">{t('create.test')}</option>
        </SelectField>
        <div className="span-2">
          <CheckboxGroup legend={t('create.scopes')} options={scopeOptions} value={scopes} onChange={setScopes}
            hint={props.isOwner ? t('create.scopesHint') : t('create.scopesHintDeveloper')} />
          {touched && scopeError !== undefined ? <p className="field-error">{scopeError}</p> : null}
        </div>
        {create.isError ? <div className="span-2"><ErrorNotice error={create.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={create.isPending}>{t('create.submit')}</button></div>
      </form>
      <Modal open={created !== undefined} onClose={() => setCreated(undefined)} title={t('created.title')} finalFocus={nameRef}>
        {created === undefined ? null : (
          <div className="dialog-body">
            <p><strong>{t('created.copyNow')}</strong> {t('created.once')}</p>
            <CopyValue value={created.api_key} label={t('created.copyLabel')} />
            <p className="hint">
              {created.mode === 'test' ? t('created.testKeyNamed', { name: created.name }) : t('created.keyNamed', { name: created.name })}{' '}
              {t('created.scopes', { scopes: created.scopes.join(', ') })}{' '}
              {created.expires_at === null ? t('created.noExpiry') : <>{t('created.expires')} <Time iso={created.expires_at} /></>}
            </p>
            <div className="dialog-actions"><button type="button" className="button" onClick={() => setCreated(undefined)}>{t('created.done')}</button></div>
          </div>
        )}
      </Modal>
    </Section>
  );
}

function KeyTable(props: { keys: readonly ApiKeyListed[]; canRevoke: boolean }) {
  const { t } = useTranslation('keys');
  const client = useQueryClient();
  const [revoking, setRevoking] = useState<ApiKeyListed | undefined>();
  const [revoked, setRevoked] = useState<ApiKeyListed | undefined>();
  const revoke = useMutation({
    mutationFn: (key: ApiKeyListed) => revokeApiKey(key.key_id),
    onSuccess: async (_, key) => {
      setRevoking(undefined);
      // The Revoke button goes with the refreshed list: focus moves to what was done once it has.
      await client.invalidateQueries({ queryKey: apiKeyKeys.all });
      setRevoked(key);
    },
  });
  const revokedRef = useFocusOn<HTMLParagraphElement>(revoked);
  return (
    <>
      {revoked === undefined ? null : <p className="notice" role="status" tabIndex={-1} ref={revokedRef}>{t('list.revoked', { name: revoked.name })}</p>}
      <DataTable rows={props.keys} rowKey={(key) => key.key_id} columns={[
        { header: t('list.name'), cell: (key) => <>{key.name}{key.mode === 'test' ? <> <StatusBadge status="test" /></> : null}<div className="muted mono small">{key.key_id}</div></> },
        { header: t('list.scopes'), cell: (key) => key.scopes.join(', ') },
        { header: t('list.created'), cell: (key) => <Time iso={key.created_at} /> },
        { header: t('list.lastUsed'), cell: (key) => (key.last_used_at === null ? <span className="muted">{t('list.never')}</span> : <><Time iso={key.last_used_at} /><div className="muted mono small">{key.last_used_ip}</div></>) },
        { header: t('list.expires'), cell: (key) => <Time iso={key.expires_at} fallback={t('list.never')} /> },
        { header: t('list.state'), cell: (key) => <StatusBadge status={keyState(key)} /> },
        { header: t('list.requests'), cell: (key) => <Link to={`/api-keys/${encodeURIComponent(key.key_id)}/requests`} aria-label={t('list.requestsOf', { name: key.name })}>{t('list.requestLog')}</Link> },
        props.canRevoke && { header: t('list.actions'), hiddenHeader: true, cell: (key) => (keyState(key) === 'revoked' ? null
          : <button type="button" className="button small danger" onClick={() => { setRevoked(undefined); setRevoking(key); }} aria-label={t('list.revokeNamed', { name: key.name })}>{t('list.revoke')}</button>) },
      ]} />
      <ConfirmDialog open={revoking !== undefined} onClose={() => { setRevoking(undefined); revoke.reset(); }} title={t('revoke.title')}
        confirmLabel={t('revoke.confirm')} danger busy={revoke.isPending} onConfirm={() => revoking !== undefined && revoke.mutate(revoking)}>
        <p>{t('revoke.body', { name: revoking?.name ?? '' })}</p>
        {revoke.isError ? <ErrorNotice error={revoke.error} /> : null}
      </ConfirmDialog>
    </>
  );
}
