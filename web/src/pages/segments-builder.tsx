import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
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
  audienceOf, filterOf, isEngagement, newRule, operatorsOf, ruleNode, segmentRequestOf, SUBJECTS,
  type Audience, type BuildProblem, type Rule, type Subject, type ValueType,
} from './segments-model.ts';

/** An example of the filter language, as written (the same in every language). */
const FILTER_EXAMPLE = '{"and": [{"field": "attributes.city", "eq": "Lima"}, {"opened": "<campaign id>"}]}';

/**
 * Who a campaign reaches: lists (confirmed subscribers), lists to leave out, and
 * conditions on the contact's fields, attributes and engagement. `lockAudience` shows it
 * read-only (a sent campaign's audience is fixed and billed).
 */
export function AudienceEditor(props: { value: Audience; onChange: (next: Audience) => void; disabled?: boolean }) {
  const { t } = useTranslation('audience');
  const lists = useQuery(listsQuery);
  const { value, onChange } = props;
  const disabled = props.disabled === true;
  if (lists.isPending) return <Loading label={t('builder.loadingLists')} />;
  if (lists.isError) return <ErrorNotice error={lists.error} onRetry={() => void lists.refetch()} />;
  if (lists.data.lists.length === 0) {
    return <div className="state empty"><p><strong>{t('lists.none')}</strong></p><p>{t('builder.noListsBefore')} <Link to="/lists">{t('builder.noListsLink')}</Link> {t('builder.noListsAfter')}</p></div>;
  }
  const options = lists.data.lists.map((l: ListView) => ({ value: l.list_id, label: <>{l.name} <span className="muted small">({t('builder.confirmedCount', { count: l.subscribers.confirmed, formatted: formatCount(l.subscribers.confirmed) })})</span></> }));
  return (
    <div className="audience">
      <CheckboxGroup legend={t('builder.sendTo')} options={options} value={[...value.lists]} disabled={disabled}
        onChange={(next) => onChange({ ...value, lists: next })} hint={t('builder.sendToHint')} />
      <CheckboxGroup legend={t('builder.leaveOut')} options={options} value={[...value.exclude]} disabled={disabled}
        onChange={(next) => onChange({ ...value, exclude: next })} hint={t('builder.leaveOutHint')} />
      <Conditions value={value} onChange={onChange} disabled={disabled} />
    </div>
  );
}

function Conditions(props: { value: Audience; onChange: (next: Audience) => void; disabled: boolean }) {
  const { t } = useTranslation('audience');
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
      <legend id={headingId}>{t('builder.conditions')}</legend>
      {value.json !== undefined ? (
        <>
          <TextArea label={t('builder.filterJson')} className="code-input" rows={8} value={value.json} readOnly={disabled} spellCheck={false}
            onChange={(e) => onChange({ ...value, json: e.target.value })}
            hint={<>{t('builder.filterJsonHintBefore')} <code>{FILTER_EXAMPLE}</code>. {t('builder.filterJsonHintAfter')}</>} />
          {disabled ? null : (
            <button type="button" className="link-button" disabled={!rowsPossible} onClick={toRows}>
              {rowsPossible ? t('builder.asRows') : t('builder.nested')}
            </button>
          )}
        </>
      ) : (
        <>
          {value.rules.length === 0 ? <p className="hint">{t('builder.noConditions')}</p> : null}
          {value.rules.length > 1 ? (
            <SelectField label={t('builder.match')} value={value.join} disabled={disabled} onChange={(e) => onChange({ ...value, join: e.target.value === 'or' ? 'or' : 'and' })}>
              <option value="and">{t('builder.all')}</option>
              <option value="or">{t('builder.any')}</option>
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
              <button type="button" className="button small secondary" onClick={() => onChange({ ...value, rules: [...value.rules, newRule()] })}>{t('builder.add')}</button>
              <button type="button" className="link-button" onClick={toJson}>{t('builder.asJson')}</button>
            </div>
          )}
        </>
      )}
    </fieldset>
  );
}

function ConditionRow(props: { rule: Rule; index: number; disabled: boolean; onChange: (next: Rule) => void; onRemove: () => void }) {
  const { t } = useTranslation('audience');
  const { rule, disabled } = props;
  const campaigns = useQuery({ ...campaignsQuery(undefined), enabled: isEngagement(rule.subject) });
  const set = (patch: Partial<Rule>): void => props.onChange({ ...rule, ...patch });
  const n = props.index + 1;
  const node = ruleNode(rule);
  const error = node.ok ? undefined : t(`problem.${node.key}`, { ...node.values });
  const ops = operatorsOf(rule.subject);
  const needsValue = !isEngagement(rule.subject) && rule.op !== 'exists' && rule.op !== 'missing';
  return (
    <div className="condition" role="group" aria-label={t('builder.condition', { n })}>
      <SelectField label={t('builder.on')} value={rule.subject} disabled={disabled}
        onChange={(e) => { const subject = e.target.value as Subject; set({ subject, op: operatorsOf(subject)[0] ?? 'eq', value: '' }); }}>
        {SUBJECTS.map((s) => <option key={s.value} value={s.value}>{t(`subject.${s.value}`)}</option>)}
      </SelectField>
      {rule.subject === 'attribute' ? (
        <TextField label={t('builder.attribute')} value={rule.attribute} readOnly={disabled} onChange={(e) => set({ attribute: e.target.value })} placeholder={t('builder.attributePlaceholder')} spellCheck={false} />
      ) : null}
      {ops.length > 0 ? (
        <SelectField label={t('builder.test')} value={rule.op} disabled={disabled} onChange={(e) => set({ op: e.target.value as Rule['op'] })}>
          {ops.map((op) => <option key={op} value={op}>{t(`operator.${op}`)}</option>)}
        </SelectField>
      ) : null}
      {isEngagement(rule.subject) ? (
        <SelectField label={t('builder.campaign')} value={rule.campaign} disabled={disabled} onChange={(e) => set({ campaign: e.target.value })}>
          <option value="">{campaigns.isPending ? t('common:loading') : t('builder.chooseCampaign')}</option>
          {(campaigns.data?.campaigns ?? []).filter((c) => c.status !== 'draft').map((c) => <option key={c.campaign_id} value={c.campaign_id}>{c.name}</option>)}
        </SelectField>
      ) : null}
      {rule.subject === 'delivered_within' ? (
        <TextField label={t('builder.days')} type="number" min={1} max={3650} value={rule.value} readOnly={disabled} onChange={(e) => set({ value: e.target.value })} />
      ) : needsValue ? (
        <TextField label={rule.op === 'in' ? t('builder.values') : t('builder.value')} type={rule.subject === 'created_at' ? 'datetime-local' : 'text'}
          value={rule.value} readOnly={disabled} onChange={(e) => set({ value: e.target.value })} />
      ) : null}
      {rule.subject === 'attribute' && needsValue && rule.op !== 'contains' ? (
        <SelectField label={t('builder.as')} value={rule.type} disabled={disabled} onChange={(e) => set({ type: e.target.value as ValueType })}>
          <option value="text">{t('builder.text')}</option>
          <option value="number">{t('builder.number')}</option>
          <option value="boolean">{t('builder.boolean')}</option>
        </SelectField>
      ) : null}
      {disabled ? null : (
        <div className="condition-remove">
          <button type="button" className="button small secondary" onClick={props.onRemove} aria-label={t('builder.removeNamed', { n })}>{t('builder.remove')}</button>
        </div>
      )}
      {error === undefined ? null : <p className="field-error condition-error">{t('builder.condition', { n })}: {error}</p>}
    </div>
  );
}

/** A problem of the audience in the page's language, naming the condition it is in. */
function problemText(t: TFunction<'audience'>, problem: BuildProblem): string {
  const text = t(`problem.${problem.key}`, { ...problem.values });
  const condition = problem.values?.['condition'];
  return condition === undefined ? text : `${t('builder.condition', { n: condition })}: ${text}`;
}

/** The audience counted by herald as it is edited (POST /v1/segments/count, a moment after typing stops). */
export function SegmentCount(props: { audience: Audience }) {
  const { t } = useTranslation('audience');
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
      {!built.ok ? <p className="muted">{problemText(t, built)}.</p>
        : count.isError && !stale ? <ErrorNotice error={count.error} />
          : count.data === undefined ? <Loading label={t('builder.counting')} />
            : (
              <p>
                <span className="segment-number">{formatCount(count.data.contacts)}</span> {t('builder.inAudience', { count: count.data.contacts })}
                {stale || count.isFetching ? <span className="muted small"> ({t('builder.countingLower')})</span> : null}
              </p>
            )}
      <p className="hint">{t('builder.suppressedHint')}</p>
    </div>
  );
}
