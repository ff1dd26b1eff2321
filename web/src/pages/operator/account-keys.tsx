import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { grantableScopes } from '@herald/domain/grantable-scopes.ts';
import { KEY_NAME_MAX } from '@herald/domain/text-limits.ts';
import { issueKey, operatorKeys, revokeKey } from '../../api/operator/accounts.ts';
import type { AccountDetails, AdminIssuedKey, KeyScope } from '../../api/types.ts';
import { CopyValue } from '../../components/copy-button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ConfirmDialog, Modal } from '../../components/dialog.tsx';
import { CheckboxGroup, SelectField, TextField } from '../../components/field.tsx';
import { Section } from '../../components/page.tsx';
import { ErrorNotice } from '../../components/query-state.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { Time } from '../../components/time.tsx';
import { useFocusOn } from '../../lib/use-focus-on.ts';
import { useScopeOptions } from '../api-keys.tsx';

type Key = AccountDetails['apiKeys'][number];

/** The account's keys for the operator: listed without their material, issued with scopes (the key shown once), revoked. */
export function AccountKeys(props: { account: AccountDetails }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const id = props.account.id;
  const [revoking, setRevoking] = useState<Key | undefined>();
  const [revoked, setRevoked] = useState<Key | undefined>();
  const revoke = useMutation({
    mutationFn: (key: Key) => revokeKey(id, key.id),
    onSuccess: async (_, key) => {
      setRevoking(undefined);
      // The Revoke button goes with the refreshed list: focus moves to what was done once it has.
      await client.invalidateQueries({ queryKey: operatorKeys.account(id) });
      setRevoked(key);
    },
  });
  const revokedRef = useFocusOn<HTMLParagraphElement>(revoked);
  const nameOf = (key: Key): string => (key.name === '' ? t('keys.unnamed') : key.name);
  return (
    <Section title={t('keys.title')} id="api-keys">
      {revoked === undefined ? null : <p className="notice" role="status" tabIndex={-1} ref={revokedRef}>{t('keys.revoked', { name: nameOf(revoked) })}</p>}
      <DataTable rows={props.account.apiKeys} rowKey={(key) => key.id} columns={[
        { header: t('keys.name'), cell: (key) => <>{nameOf(key)}{key.mode === 'test' ? <> <StatusBadge status="test" /></> : null}<div className="muted mono small">{key.id}</div></> },
        { header: t('keys.scopes'), cell: (key) => key.scopes.join(', ') },
        { header: t('keys.created'), cell: (key) => <Time iso={key.createdAt} /> },
        { header: t('keys.expires'), cell: (key) => <Time iso={key.expiresAt} fallback={t('keys.never')} /> },
        { header: t('keys.state'), cell: (key) => <StatusBadge status={key.revokedAt === null ? 'active' : 'revoked'} /> },
        { header: t('keys.actions'), hiddenHeader: true, cell: (key) => (key.revokedAt !== null ? null
          : <button type="button" className="button small danger" onClick={() => { setRevoked(undefined); setRevoking(key); }} aria-label={t('keys.revokeNamed', { name: nameOf(key) })}>{t('keys.revoke')}</button>) },
      ]} />
      <ConfirmDialog open={revoking !== undefined} onClose={() => { setRevoking(undefined); revoke.reset(); }} title={t('keys.revokeTitle')}
        confirmLabel={t('keys.revokeConfirm')} danger busy={revoke.isPending} onConfirm={() => revoking !== undefined && revoke.mutate(revoking)}>
        <p>{t('keys.revokeBody', { name: revoking === undefined ? '' : nameOf(revoking) })}</p>
        {revoke.isError ? <ErrorNotice error={revoke.error} /> : null}
      </ConfirmDialog>
      <IssueKey id={id} />
    </Section>
  );
}

function IssueKey(props: { id: string }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  // The operator stands for the account's owner: every scope may be given.
  const scopeOptions = useScopeOptions(grantableScopes(true));
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<KeyScope[]>(['email']);
  const [mode, setMode] = useState<'live' | 'test'>('live');
  const [touched, setTouched] = useState(false);
  const [issued, setIssued] = useState<(AdminIssuedKey & { name: string }) | undefined>();
  const nameRef = useRef<HTMLInputElement>(null);
  const issue = useMutation({
    mutationFn: () => issueKey(props.id, { name: name.trim(), scopes, mode }),
    onSuccess: (key) => {
      setIssued({ ...key, name: name.trim() });
      setName(''); setTouched(false);
      void client.invalidateQueries({ queryKey: operatorKeys.account(props.id) });
    },
  });
  const nameError = name.trim() === '' ? t('keys.nameMissing') : undefined;
  const scopeError = scopes.length === 0 ? t('keys.scopeMissing') : undefined;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (nameError === undefined && scopeError === undefined) issue.mutate();
  };
  return (
    <>
      <h3>{t('keys.issueTitle')}</h3>
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField ref={nameRef} label={t('keys.name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={KEY_NAME_MAX}
          error={touched ? nameError : undefined} hint={t('keys.nameLimit', { used: name.length, max: KEY_NAME_MAX })} />
        <SelectField label={t('keys.mode')} value={mode} onChange={(e) => setMode(e.target.value === 'test' ? 'test' : 'live')}>
          <option value="live">{t('keys.live')}</option>
          <option value="test">{t('keys.test')}</option>
        </SelectField>
        <div className="span-2">
          <CheckboxGroup legend={t('keys.scopes')} options={scopeOptions} value={scopes} onChange={setScopes} />
          {touched && scopeError !== undefined ? <p className="field-error">{scopeError}</p> : null}
        </div>
        {issue.isError ? <div className="span-2"><ErrorNotice error={issue.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={issue.isPending}>{t('keys.issue')}</button></div>
      </form>
      <Modal open={issued !== undefined} onClose={() => setIssued(undefined)} title={t('keys.issuedTitle')} finalFocus={nameRef}>
        {issued === undefined ? null : (
          <div className="dialog-body">
            <p>{t('keys.issuedOnce', { name: issued.name, scopes: issued.scopes.join(', ') })}</p>
            <CopyValue value={issued.apiKey} label={t('keys.copyLabel')} />
            <div className="dialog-actions"><button type="button" className="button" onClick={() => setIssued(undefined)}>{t('keys.copied')}</button></div>
          </div>
        )}
      </Modal>
    </>
  );
}
