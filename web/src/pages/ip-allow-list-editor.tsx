import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { isIpAllowed, parseAllowList } from '@herald/domain/ip-allow-list.ts';
import { accountKeys, accountQuery, saveAllowList } from '../api/account.ts';
import { ApiError } from '../api/http.ts';
import type { AccountView, AllowListAppliesTo } from '../api/types.ts';
import { SelectField } from '../components/field.tsx';
import { Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { useFocusOn } from '../lib/use-focus-on.ts';

// Entries are checked by herald's own parser (domain/ip-allow-list.ts), bundled here,
// so the page and the server agree on what an entry is and on who a list lets in. The
// server has the last word: a list that would shut the saver out of this application
// is refused (409, docs/users-and-sessions.md), and the page offers the two ways out.

/** What is wrong with one entry, in the page's language; undefined when nothing is. */
export function useEntryError(): (entry: string) => string | undefined {
  const { t } = useTranslation('keys');
  return (entry) => {
    if (entry.trim() === '') return t('allowList.entry.empty');
    if (entry !== entry.trim()) return t('allowList.entry.spaces');
    return parseAllowList([entry]).ok ? undefined : t('allowList.entry.invalid');
  };
}

/** Whether saving `entries` would refuse the address this browser reaches herald from. */
export function locksOut(entries: readonly string[], callerIp: string | undefined): boolean {
  if (callerIp === undefined || entries.length === 0) return false;
  const parsed = parseAllowList(entries);
  return parsed.ok && !isIpAllowed(parsed.value, callerIp);
}

/** The select of "whom the list binds", as both the account's page and the console word it. */
export function AppliesToField(props: { value: AllowListAppliesTo; onChange: (value: AllowListAppliesTo) => void }) {
  const { t } = useTranslation('keys');
  return (
    <SelectField label={t('allowList.binds')} value={props.value} onChange={(e) => props.onChange(e.target.value === 'keys' ? 'keys' : 'all')} hint={t('allowList.bindsHint')}>
      <option value="all">{t('allowList.appliesTo.all')}</option>
      <option value="keys">{t('allowList.appliesTo.keys')}</option>
    </SelectField>
  );
}

export function IpAllowListEditor(props: { canEdit: boolean }) {
  const { t } = useTranslation('keys');
  const account = useQuery(accountQuery);
  return (
    <Section title={t('allowList.title')} id="ip-allow-list">
      <p className="lede">{t('allowList.lede')}</p>
      <QueryState query={account}>{(data) => <Editor account={data} canEdit={props.canEdit} />}</QueryState>
    </Section>
  );
}

interface Settings {
  readonly entries: string[];
  readonly appliesTo: AllowListAppliesTo;
}

function Editor(props: { account: AccountView; canEdit: boolean }) {
  const { t } = useTranslation('keys');
  const entryError = useEntryError();
  const client = useQueryClient();
  const callerIp = props.account.caller_ip;
  const [entries, setEntries] = useState<string[]>([...props.account.ip_allow_list]);
  const [appliesTo, setAppliesTo] = useState<AllowListAppliesTo>(props.account.allow_list_applies_to);
  const [touched, setTouched] = useState(false);
  const [saved, setSaved] = useState(0);
  useEffect(() => setEntries([...props.account.ip_allow_list]), [props.account.ip_allow_list]);
  useEffect(() => setAppliesTo(props.account.allow_list_applies_to), [props.account.allow_list_applies_to]);
  const save = useMutation({
    mutationFn: (settings: Settings) => saveAllowList(settings.entries, settings.appliesTo),
    onSuccess: (updated) => {
      setSaved((n) => n + 1);
      client.setQueryData(accountKeys.account, updated);
    },
  });
  const savedRef = useFocusOn<HTMLParagraphElement>(saved === 0 ? undefined : saved);
  // A removed entry takes its Remove button with it: focus goes to the entry now in its place, or to "Add an entry".
  const addRef = useRef<HTMLButtonElement>(null);
  const [removedAt, setRemovedAt] = useState<{ index: number } | undefined>();
  useEffect(() => {
    if (removedAt === undefined) return;
    const next = document.getElementById(`ip-entry-${Math.min(removedAt.index, entries.length - 1)}`);
    (next ?? addRef.current)?.focus();
  }, [removedAt]);
  const errors = entries.map(entryError);
  const valid = errors.every((e) => e === undefined);
  const leavesMeOut = valid && locksOut(entries, callerIp);
  const refused = save.error instanceof ApiError && save.error.status === 409;
  const store = (settings: Settings): void => {
    setEntries(settings.entries);
    setAppliesTo(settings.appliesTo);
    setSaved(0);
    save.mutate(settings);
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    setSaved(0);
    // Sent even when it would shut this browser out: herald decides, and its refusal shows below.
    if (valid) save.mutate({ entries, appliesTo });
  };
  const bindsText = props.account.allow_list_applies_to === 'keys' ? t('allowList.appliesTo.keys') : t('allowList.appliesTo.all');
  if (!props.canEdit) {
    return (
      <>
        {entries.length === 0 ? <p>{t('allowList.everyAddress')}</p> : <ul className="plain-list mono">{entries.map((e) => <li key={e}>{e}</li>)}</ul>}
        <p className="hint">{t('allowList.bindsReadOnly', { binds: bindsText })}</p>
      </>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <p className="hint"><Trans t={t} i18nKey="allowList.youAreAt" values={{ ip: callerIp }} components={{ code: <code /> }} /></p>
      <ul className="entry-list">
        {entries.map((entry, index) => {
          const error = touched || entry !== '' ? errors[index] : undefined;
          const id = `ip-entry-${index}`;
          return (
            <li key={index} className={error === undefined ? 'entry' : 'entry invalid'}>
              <label htmlFor={id} className="visually-hidden">{t('allowList.entryLabel', { n: index + 1 })}</label>
              <input id={id} className="mono" value={entry} placeholder="203.0.113.7, 10.0.0.0/8" aria-invalid={error === undefined ? undefined : true}
                aria-describedby={error === undefined ? undefined : `${id}-error`} onChange={(e) => setEntries(entries.map((v, i) => (i === index ? e.target.value : v)))} />
              <button type="button" className="button small secondary" aria-label={t('allowList.removeEntry', { n: index + 1 })}
                onClick={() => { setEntries(entries.filter((_, i) => i !== index)); setRemovedAt({ index }); }}>{t('allowList.remove')}</button>
              {error === undefined ? null : <p className="field-error" id={`${id}-error`}>{error}</p>}
            </li>
          );
        })}
      </ul>
      <AppliesToField value={appliesTo} onChange={setAppliesTo} />
      {leavesMeOut && appliesTo === 'all' && !refused ? <p className="warning" role="status">{t('allowList.locksOutAll', { ip: callerIp })}</p> : null}
      {leavesMeOut && appliesTo === 'keys' ? <p className="hint" role="status">{t('allowList.locksOutKeys', { ip: callerIp })}</p> : null}
      <div className="row">
        <button type="button" className="button secondary" ref={addRef} onClick={() => setEntries([...entries, ''])}>{t('allowList.add')}</button>
        <button type="submit" className="button" disabled={save.isPending}>{t('allowList.save')}</button>
      </div>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {refused ? (
        <div className="row">
          <button type="button" className="button" disabled={save.isPending} onClick={() => store({ entries: [...entries, callerIp], appliesTo })}>{t('allowList.addMineAndSave', { ip: callerIp })}</button>
          <button type="button" className="button secondary" disabled={save.isPending} onClick={() => store({ entries, appliesTo: 'keys' })}>{t('allowList.saveForKeys')}</button>
        </div>
      ) : null}
      {saved > 0 && !save.isPending
        ? <p className="notice" role="status" tabIndex={-1} ref={savedRef}>{entries.length === 0 ? t('allowList.savedEmpty') : t('allowList.saved')}</p>
        : null}
    </form>
  );
}
