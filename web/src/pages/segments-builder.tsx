import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-router';
import { campaignsQuery } from '../api/campaigns.ts';
import { listsQuery } from '../api/lists.ts';
import { countSegment, segmentKeys } from '../api/segments.ts';
import type { ListView, SegmentRequest } from '../api/types.ts';
import { CheckboxGroup, SelectField, TextArea, TextField } from '../components/field.tsx';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { formatCount } from '../lib/format.ts';
import { useDebounced } from '../lib/use-debounced.ts';
import {
  audienceOf, filterOf, isEngagement, newRule, OPERATOR_LABELS, operatorsOf, ruleNode, segmentRequestOf, SUBJECTS,
  type Audience, type Rule, type Subject, type ValueType,
} from './segments-model.ts';

/**
 * Who a campaign reaches: lists (confirmed subscribers), lists to leave out, and
 * conditions on the contact's fields, attributes and engagement. `lockAudience` shows it
 * read-only (a sent campaign's audience is fixed and billed).
 */
export function AudienceEditor(props: { value: Audience; onChange: (next: Audience) => void; disabled?: boolean }) {
  const lists = useQuery(listsQuery);
  const { value, onChange } = props;
  const disabled = props.disabled === true;
  if (lists.isPending) return <Loading label="Loading the lists…" />;
  if (lists.isError) return <ErrorNotice error={lists.error} onRetry={() => void lists.refetch()} />;
  if (lists.data.lists.length === 0) {
    return <div className="state empty"><p><strong>No lists yet</strong></p><p>An audience is made of lists. <Link to="/lists">Create a list</Link> and add contacts first.</p></div>;
  }
  const options = lists.data.lists.map((l: ListView) => ({ value: l.list_id, label: <>{l.name} <span className="muted small">({formatCount(l.subscribers.confirmed)} confirmed)</span></> }));
  return (
    <div className="audience">
      <CheckboxGroup legend="Send to the confirmed subscribers of" options={options} value={[...value.lists]} disabled={disabled}
        onChange={(next) => onChange({ ...value, lists: next })} hint="A contact on several of them is counted once." />
      <CheckboxGroup legend="Leave out everyone on" options={options} value={[...value.exclude]} disabled={disabled}
        onChange={(next) => onChange({ ...value, exclude: next })} hint="In any status: confirmed, unconfirmed or unsubscribed." />
      <Conditions value={value} onChange={onChange} disabled={disabled} />
    </div>
  );
}

function Conditions(props: { value: Audience; onChange: (next: Audience) => void; disabled: boolean }) {
  const { value, onChange, disabled } = props;
  const headingId = useId();
  const toJson = (): void => {
    const filter = filterOf(value);
    onChange({ ...value, json: filter.ok && filter.value !== undefined ? JSON.stringify(filter.value, null, 2) : '' });
  };
  const toRows = (): void => {
    const filter = filterOf(value);
    if (!filter.ok) return;
    const back = audienceOf(value.lists, value.exclude, filter.value);
    if (back.json === undefined) onChange(back);
  };
  const rowsPossible = value.json !== undefined && (() => {
    const filter = filterOf(value);
    return filter.ok && audienceOf([], [], filter.value).json === undefined;
  })();
  return (
    <fieldset className="checkbox-group conditions" aria-labelledby={headingId}>
      <legend id={headingId}>Conditions</legend>
      {value.json !== undefined ? (
        <>
          <TextArea label="Filter (JSON)" className="code-input" rows={8} value={value.json} readOnly={disabled} spellCheck={false}
            onChange={(e) => onChange({ ...value, json: e.target.value })}
            hint={<>The filter language of docs/campaigns.md: <code>{'{"and": [{"field": "attributes.city", "eq": "Lima"}, {"opened": "<campaign id>"}]}'}</code>. Empty: everyone on the lists.</>} />
          {disabled ? null : (
            <button type="button" className="link-button" disabled={!rowsPossible} onClick={toRows}>
              {rowsPossible ? 'Edit as conditions' : 'This filter has nested groups: edit it as JSON'}
            </button>
          )}
        </>
      ) : (
        <>
          {value.rules.length === 0 ? <p className="hint">No conditions: everyone on the lists above.</p> : null}
          {value.rules.length > 1 ? (
            <SelectField label="Match" value={value.join} disabled={disabled} onChange={(e) => onChange({ ...value, join: e.target.value === 'or' ? 'or' : 'and' })}>
              <option value="and">all of the conditions</option>
              <option value="or">any of the conditions</option>
            </SelectField>
          ) : null}
          <ol className="condition-list">
            {value.rules.map((rule, index) => (
              <li key={rule.key}>
                <ConditionRow rule={rule} index={index} disabled={disabled}
                  onChange={(next) => onChange({ ...value, rules: value.rules.map((r) => (r.key === rule.key ? next : r)) })}
                  onRemove={() => onChange({ ...value, rules: value.rules.filter((r) => r.key !== rule.key) })} />
              </li>
            ))}
          </ol>
          {disabled ? null : (
            <div className="row">
              <button type="button" className="button small secondary" onClick={() => onChange({ ...value, rules: [...value.rules, newRule()] })}>Add a condition</button>
              <button type="button" className="link-button" onClick={toJson}>Edit as JSON</button>
            </div>
          )}
        </>
      )}
    </fieldset>
  );
}

function ConditionRow(props: { rule: Rule; index: number; disabled: boolean; onChange: (next: Rule) => void; onRemove: () => void }) {
  const { rule, disabled } = props;
  const campaigns = useQuery({ ...campaignsQuery(undefined), enabled: isEngagement(rule.subject) });
  const set = (patch: Partial<Rule>): void => props.onChange({ ...rule, ...patch });
  const n = props.index + 1;
  const node = ruleNode(rule);
  const error = node.ok ? undefined : node.error;
  const ops = operatorsOf(rule.subject);
  const needsValue = !isEngagement(rule.subject) && rule.op !== 'exists' && rule.op !== 'missing';
  return (
    <div className="condition" role="group" aria-label={`Condition ${n}`}>
      <SelectField label="Condition on" value={rule.subject} disabled={disabled}
        onChange={(e) => { const subject = e.target.value as Subject; set({ subject, op: operatorsOf(subject)[0] ?? 'eq', value: '' }); }}>
        {SUBJECTS.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
      </SelectField>
      {rule.subject === 'attribute' ? (
        <TextField label="Attribute name" value={rule.attribute} readOnly={disabled} onChange={(e) => set({ attribute: e.target.value })} placeholder="city" spellCheck={false} />
      ) : null}
      {ops.length > 0 ? (
        <SelectField label="Test" value={rule.op} disabled={disabled} onChange={(e) => set({ op: e.target.value as Rule['op'] })}>
          {ops.map((op) => <option key={op} value={op}>{OPERATOR_LABELS[op]}</option>)}
        </SelectField>
      ) : null}
      {isEngagement(rule.subject) ? (
        <SelectField label="Campaign" value={rule.campaign} disabled={disabled} onChange={(e) => set({ campaign: e.target.value })}>
          <option value="">{campaigns.isPending ? 'Loading…' : 'choose a campaign'}</option>
          {(campaigns.data?.campaigns ?? []).filter((c) => c.status !== 'draft').map((c) => <option key={c.campaign_id} value={c.campaign_id}>{c.name}</option>)}
        </SelectField>
      ) : null}
      {rule.subject === 'delivered_within' ? (
        <TextField label="Days" type="number" min={1} max={3650} value={rule.value} readOnly={disabled} onChange={(e) => set({ value: e.target.value })} />
      ) : needsValue ? (
        <TextField label={rule.op === 'in' ? 'Values (comma-separated)' : 'Value'} type={rule.subject === 'created_at' ? 'datetime-local' : 'text'}
          value={rule.value} readOnly={disabled} onChange={(e) => set({ value: e.target.value })} />
      ) : null}
      {rule.subject === 'attribute' && needsValue && rule.op !== 'contains' ? (
        <SelectField label="As" value={rule.type} disabled={disabled} onChange={(e) => set({ type: e.target.value as ValueType })}>
          <option value="text">text</option>
          <option value="number">number</option>
          <option value="boolean">true/false</option>
        </SelectField>
      ) : null}
      {disabled ? null : (
        <div className="condition-remove">
          <button type="button" className="button small secondary" onClick={props.onRemove} aria-label={`Remove condition ${n}`}>Remove</button>
        </div>
      )}
      {error === undefined ? null : <p className="field-error condition-error">Condition {n}: {error}</p>}
    </div>
  );
}

/** The audience counted by herald as it is edited (POST /v1/segments/count, a moment after typing stops). */
export function SegmentCount(props: { audience: Audience }) {
  const built = segmentRequestOf(props.audience);
  // Debounced as text: equal audiences are equal strings, so an unchanged audience asks nothing again.
  const request = built.ok ? JSON.stringify(built.value) : undefined;
  const settled = useDebounced(request, 300);
  const count = useQuery({
    queryKey: segmentKeys.count(settled),
    queryFn: () => countSegment(JSON.parse(settled ?? '{}') as SegmentRequest),
    enabled: settled !== undefined,
    placeholderData: (previous) => previous,
    retry: false,
    staleTime: 0,
  });
  const stale = settled !== request;
  return (
    <div className="segment-count" aria-live="polite">
      {!built.ok ? <p className="muted">{built.error}.</p>
        : count.isError && !stale ? <ErrorNotice error={count.error} />
          : count.data === undefined ? <Loading label="Counting…" />
            : (
              <p>
                <span className="segment-number">{formatCount(count.data.contacts)}</span> contact{count.data.contacts === 1 ? '' : 's'} in this audience now
                {stale || count.isFetching ? <span className="muted small"> (counting…)</span> : null}
              </p>
            )}
      <p className="hint">Suppressed addresses are counted here; a campaign's quote leaves them out.</p>
    </div>
  );
}
