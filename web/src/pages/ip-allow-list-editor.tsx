import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { isIpAllowed, parseAllowList } from '@herald/domain/ip-allow-list.ts';
import { api } from '../api/http.ts';
import type { AccountView } from '../api/types.ts';
import { ConfirmDialog } from '../components/dialog.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { accountQuery } from './overview.tsx';

// Entries are checked by herald's own parser (domain/ip-allow-list.ts), bundled here,
// so the page and the server agree on what an entry is and on who a list lets in.

function entryError(entry: string): string | undefined {
  if (entry.trim() === '') return 'Enter an IPv4 or IPv6 address, or a CIDR range';
  if (entry !== entry.trim()) return 'Remove the spaces around the entry';
  return parseAllowList([entry]).ok ? undefined : 'Not an IPv4 or IPv6 address or CIDR range (e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32)';
}

/** Whether saving `entries` would refuse the address this browser reaches herald from. */
export function locksOut(entries: readonly string[], callerIp: string | undefined): boolean {
  if (callerIp === undefined || entries.length === 0) return false;
  const parsed = parseAllowList(entries);
  return parsed.ok && !isIpAllowed(parsed.value, callerIp);
}

export function IpAllowListEditor(props: { canEdit: boolean }) {
  const account = useQuery(accountQuery);
  return (
    <Section title="IP allow-list">
      <p className="lede">API keys work only from these addresses. An empty list lets every address in.</p>
      <QueryState query={account}>{(data) => <Editor account={data} canEdit={props.canEdit} />}</QueryState>
    </Section>
  );
}

function Editor(props: { account: AccountView; canEdit: boolean }) {
  const client = useQueryClient();
  const [entries, setEntries] = useState<string[]>([...props.account.ip_allow_list]);
  const [touched, setTouched] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState(false);
  useEffect(() => setEntries([...props.account.ip_allow_list]), [props.account.ip_allow_list]);
  const save = useMutation({
    mutationFn: (list: string[]) => api<AccountView>('/v1/account', { method: 'PATCH', body: { ip_allow_list: list } }),
    onSuccess: (updated) => {
      setConfirming(false);
      setSaved(true);
      client.setQueryData(accountQuery.queryKey, updated);
    },
  });
  const errors = entries.map(entryError);
  const valid = errors.every((e) => e === undefined);
  const lockout = valid && locksOut(entries, props.account.caller_ip);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    setSaved(false);
    if (!valid) return;
    if (lockout) setConfirming(true);
    else save.mutate(entries);
  };
  if (!props.canEdit) {
    return entries.length === 0 ? <p>Every address may use the keys. Only an owner can change this.</p>
      : <><ul className="plain-list mono">{entries.map((e) => <li key={e}>{e}</li>)}</ul><p className="hint">Only an owner can change this.</p></>;
  }
  return (
    <form onSubmit={submit} noValidate>
      <p className="hint">You are reaching herald from <code>{props.account.caller_ip}</code>.</p>
      <ul className="entry-list">
        {entries.map((entry, index) => {
          const error = touched || entry !== '' ? errors[index] : undefined;
          const id = `ip-entry-${index}`;
          return (
            <li key={index} className={error === undefined ? 'entry' : 'entry invalid'}>
              <label htmlFor={id} className="visually-hidden">Entry {index + 1}</label>
              <input id={id} className="mono" value={entry} placeholder="203.0.113.7 or 10.0.0.0/8" aria-invalid={error === undefined ? undefined : true}
                aria-describedby={error === undefined ? undefined : `${id}-error`} onChange={(e) => setEntries(entries.map((v, i) => (i === index ? e.target.value : v)))} />
              <button type="button" className="button small secondary" aria-label={`Remove entry ${index + 1}`} onClick={() => setEntries(entries.filter((_, i) => i !== index))}>Remove</button>
              {error === undefined ? null : <p className="field-error" id={`${id}-error`}>{error}</p>}
            </li>
          );
        })}
      </ul>
      <div className="row">
        <button type="button" className="button secondary" onClick={() => setEntries([...entries, ''])}>Add an entry</button>
        <button type="submit" className="button" disabled={save.isPending}>Save the list</button>
      </div>
      {lockout ? <p className="warning" role="status">This list does not include your address ({props.account.caller_ip}): keys used from here would be refused.</p> : null}
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {saved && !save.isPending ? <p className="notice" role="status">Saved. {entries.length === 0 ? 'Every address may use the keys.' : ''}</p> : null}
      <ConfirmDialog open={confirming} onClose={() => setConfirming(false)} title="Lock out your own address?" confirmLabel="Save anyway" danger
        busy={save.isPending} onConfirm={() => save.mutate(entries)}>
        <p>You are using <code>{props.account.caller_ip}</code>, which this list does not let in. Keys used from this address will be refused until the list changes.</p>
      </ConfirmDialog>
    </form>
  );
}
