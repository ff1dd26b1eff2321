import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { isIpAllowed, parseAllowList } from '@herald/domain/ip-allow-list.ts';
import { accountKeys, accountQuery, saveAllowList } from '../api/account.ts';
import { ApiError } from '../api/http.ts';
import type { AccountView, AllowListAppliesTo } from '../api/types.ts';
import { SelectField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';

// Entries are checked by herald's own parser (domain/ip-allow-list.ts), bundled here,
// so the page and the server agree on what an entry is and on who a list lets in. The
// server has the last word: a list that would shut the saver out of this application
// is refused (409, docs/users-and-sessions.md), and the page offers the two ways out.

export function entryError(entry: string): string | undefined {
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

/** The two answers to "whom does the list bind", as both the account's page and the console word them. */
export const APPLIES_TO_CHOICES: readonly { readonly value: AllowListAppliesTo; readonly label: string }[] = [
  { value: 'all', label: 'API keys and the web application' },
  { value: 'keys', label: 'API keys only' },
];
export const APPLIES_TO_HINT = 'API keys and the web application: everyone who signs in must also come from a listed address. '
  + 'API keys only: people sign in from anywhere; keys stay held to the list.';

export function IpAllowListEditor(props: { canEdit: boolean }) {
  const account = useQuery(accountQuery);
  return (
    <Section title="IP allow-list">
      <p className="lede">API keys, and unless you choose otherwise this web application, work only from these addresses. An empty list lets every address in.</p>
      <QueryState query={account}>{(data) => <Editor account={data} canEdit={props.canEdit} />}</QueryState>
    </Section>
  );
}

interface Settings {
  readonly entries: string[];
  readonly appliesTo: AllowListAppliesTo;
}

function Editor(props: { account: AccountView; canEdit: boolean }) {
  const client = useQueryClient();
  const callerIp = props.account.caller_ip;
  const [entries, setEntries] = useState<string[]>([...props.account.ip_allow_list]);
  const [appliesTo, setAppliesTo] = useState<AllowListAppliesTo>(props.account.allow_list_applies_to);
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(false);
  useEffect(() => setEntries([...props.account.ip_allow_list]), [props.account.ip_allow_list]);
  useEffect(() => setAppliesTo(props.account.allow_list_applies_to), [props.account.allow_list_applies_to]);
  const save = useMutation({
    mutationFn: (settings: Settings) => saveAllowList(settings.entries, settings.appliesTo),
    onSuccess: (updated) => {
      setSaved(true);
      client.setQueryData(accountKeys.account, updated);
    },
  });
  const errors = entries.map(entryError);
  const valid = errors.every((e) => e === undefined);
  const leavesMeOut = valid && locksOut(entries, callerIp);
  const refused = save.error instanceof ApiError && save.error.status === 409;
  const store = (settings: Settings): void => {
    setEntries(settings.entries);
    setAppliesTo(settings.appliesTo);
    setSaved(false);
    save.mutate(settings);
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    setSaved(false);
    // Sent even when it would shut this browser out: herald decides, and its refusal shows below.
    if (valid) save.mutate({ entries, appliesTo });
  };
  const bindsText = APPLIES_TO_CHOICES.find((c) => c.value === props.account.allow_list_applies_to)?.label ?? '';
  if (!props.canEdit) {
    return (
      <>
        {entries.length === 0 ? <p>Every address may use the keys and this application.</p> : <ul className="plain-list mono">{entries.map((e) => <li key={e}>{e}</li>)}</ul>}
        <p className="hint">The list binds: {bindsText}. Only an owner can change this.</p>
      </>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <p className="hint">You are reaching herald from <code>{callerIp}</code>.</p>
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
      <SelectField label="The list binds" value={appliesTo} onChange={(e) => setAppliesTo(e.target.value as AllowListAppliesTo)} hint={APPLIES_TO_HINT}>
        {APPLIES_TO_CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
      </SelectField>
      {leavesMeOut && appliesTo === 'all' && !refused ? (
        <p className="warning" role="status">
          This list does not include your address ({callerIp}): saved like this, it would shut you and every other user of this account out of this web application, and keys used from here would be refused.
        </p>
      ) : null}
      {leavesMeOut && appliesTo === 'keys' ? <p className="hint" role="status">Keys used from your address ({callerIp}) will be refused; you can still sign in from it.</p> : null}
      <div className="row">
        <button type="button" className="button secondary" onClick={() => setEntries([...entries, ''])}>Add an entry</button>
        <button type="submit" className="button" disabled={save.isPending}>Save the list</button>
      </div>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {refused ? (
        <div className="row">
          <button type="button" className="button" disabled={save.isPending} onClick={() => store({ entries: [...entries, callerIp], appliesTo })}>Add {callerIp} and save</button>
          <button type="button" className="button secondary" disabled={save.isPending} onClick={() => store({ entries, appliesTo: 'keys' })}>Save for API keys only</button>
        </div>
      ) : null}
      {saved && !save.isPending ? <p className="notice" role="status">Saved. {entries.length === 0 ? 'Every address may use the keys and this application.' : ''}</p> : null}
    </form>
  );
}
