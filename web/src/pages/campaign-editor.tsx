import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { campaignKeys, campaignQuery, createCampaign, updateCampaign } from '../api/campaigns.ts';
import { listsQuery } from '../api/lists.ts';
import { allows, SESSION_KEY, useSession } from '../api/session.ts';
import { templatesQuery } from '../api/templates.ts';
import type { CampaignInput, CampaignView } from '../api/types.ts';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { allowNextLeave, discardDraft, useFormDraft } from '../lib/form-draft.ts';
import { isoFromLocalInput } from '../lib/format.ts';
import { parseSampleVariables } from '../lib/sample-variables.ts';
import { RecordPage } from './campaign-missing.tsx';
import { ContactPreview } from './campaign-preview.tsx';
import { AudienceEditor, SegmentCount } from './segments-builder.tsx';
import { audienceOf, EMPTY_AUDIENCE, segmentRequestOf, type Audience } from './segments-model.ts';
import './campaigns.css';

const STARTER = '<p>Hello {{contact.name}},</p>\n<p>Our news of the month…</p>\n<p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>';

// Each placeholder and the `campaignEditor` key of what it stands for.
const PLACEHOLDERS: readonly [string, string][] = [
  ['{{contact.email}}', 'placeholders.email'],
  ['{{contact.name}}', 'placeholders.name'],
  ['{{contact.attributes.city}}', 'placeholders.attribute'],
  ['{{unsubscribe_url}}', 'placeholders.unsubscribe'],
];

const CAMPAIGNS_PATH = '/campaigns';

/** Campaigns that may still change: the content and schedule while draft, scheduled or paused; the audience only while draft. */
const EDITABLE = new Set(['draft', 'scheduled', 'paused']);

/** What herald gives a campaign created without a per-domain pace (DEFAULT_MESSAGES_PER_MINUTE_PER_DOMAIN, a value the bundle does not import). */
const DEFAULT_DOMAIN_PACE = 600;

/** A pace field's number (null when empty, which only some fields allow); the error unless a whole number from 1 to 1,000,000. */
function paceOf(text: string, errorText: string, emptyAllowed: boolean): { value: number | null; error: string | undefined } {
  if (text.trim() === '') return { value: null, error: emptyAllowed ? undefined : errorText };
  const value = Number(text);
  return { value, error: !Number.isInteger(value) || value < 1 || value > 1_000_000 ? errorText : undefined };
}

export default function CampaignEditorPage() {
  const { t } = useTranslation('campaignEditor');
  const campaignId = useParams().campaignId;
  const campaign = useQuery({ ...campaignQuery(campaignId ?? ''), enabled: campaignId !== undefined });
  if (campaignId === undefined) return <Editor />;
  return (
    <RecordPage query={campaign} noun={t('noun')} id={campaignId} back={CAMPAIGNS_PATH} backLabel={t('allCampaigns')}>
      {(found) => <Editor key={found.campaign_id} campaign={found} />}
    </RecordPage>
  );
}

/** A local `datetime-local` value for an ISO time. */
function localInput(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

interface Draft {
  name: string; subject: string; fromEmail: string; fromName: string; replyEmail: string; replyName: string;
  mode: 'body' | 'template'; body: string; templateId: string; variables: string; schedule: 'send' | 'at'; sendAt: string; pace: string;
  /** The per-domain pace, and whether "No limit" is chosen instead (null on the wire). */
  domainPace: string; domainUnlimited: boolean;
}

function draftOf(c: CampaignView | undefined): Draft {
  return {
    name: c?.name ?? '', subject: c?.subject ?? '',
    fromEmail: c?.from.email ?? '', fromName: c?.from.name ?? '', replyEmail: c?.replyTo.email ?? '', replyName: c?.replyTo.name ?? '',
    mode: c?.template_id ? 'template' : 'body', body: c?.body ?? STARTER, templateId: c?.template_id ?? '',
    variables: Object.entries(c?.variables ?? {}).map(([k, v]) => `${k}=${v}`).join('\n'),
    schedule: c?.send_at ? 'at' : 'send', sendAt: localInput(c?.send_at ?? null), pace: c?.messages_per_minute?.toString() ?? '',
    domainPace: c === undefined ? String(DEFAULT_DOMAIN_PACE) : c.messages_per_minute_per_domain?.toString() ?? '',
    domainUnlimited: c !== undefined && c.messages_per_minute_per_domain === null,
  };
}

/** What the tab keeps of an unsaved edit (web/src/lib/form-draft.ts). */
interface Kept { readonly draft: Draft; readonly audience: Audience }

function Editor(props: { campaign?: CampaignView }) {
  const { t } = useTranslation('campaignEditor');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const client = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const existing = props.campaign;
  const fromSegments = (location.state as { audience?: Audience } | null)?.audience;
  const [draft, setDraft] = useState<Draft>(() => draftOf(existing));
  const [audience, setAudience] = useState<Audience>(() => (existing === undefined ? fromSegments ?? EMPTY_AUDIENCE : audienceOf(existing.lists, existing.exclude_lists, existing.filter)));
  const [touched, setTouched] = useState(false);
  // The unsaved edit is kept in the tab while it differs from what was opened: an ended
  // session, a reload or a sign-in on the way gives it back, and leaving asks first.
  const [opened] = useState<Kept>(() => ({ draft, audience }));
  const [givenBack, setGivenBack] = useState(false);
  const kept = useMemo<Kept>(() => ({ draft, audience }), [draft, audience]);
  const dirty = JSON.stringify(kept) !== JSON.stringify(opened);
  const restore = useCallback((found: Kept) => {
    setDraft({ ...opened.draft, ...found.draft });
    setAudience({ ...opened.audience, ...found.audience });
    setGivenBack(true);
  }, [opened]);
  // Per user: whoever signs in next in this tab is given back only their own edit.
  const userId = session.data?.user.user_id;
  const draftKey = userId === undefined ? undefined : `campaign.${userId}.${existing?.campaign_id ?? 'new'}`;
  const { discard } = useFormDraft(draftKey, kept, dirty, restore, t('leaveQuestion'));
  // Left on purpose (the question answered yes) the edit is dropped; left because the
  // session ended (no session any more) it stays for the return.
  useEffect(() => () => {
    if (draftKey !== undefined && client.getQueryData(SESSION_KEY)) discardDraft(draftKey);
  }, [client, draftKey]);
  const startOver = (): void => {
    discard();
    setDraft(opened.draft);
    setAudience(opened.audience);
    setGivenBack(false);
  };
  const lists = useQuery(listsQuery);
  const templates = useQuery({ ...templatesQuery, enabled: draft.mode === 'template' });

  const editable = existing === undefined || EDITABLE.has(existing.status);
  const audienceEditable = existing === undefined || existing.status === 'draft';
  const variables = useMemo(() => parseSampleVariables(draft.variables), [draft.variables]);
  const audienceBody = segmentRequestOf(audience);
  const sendAt = draft.schedule === 'at' ? isoFromLocalInput(draft.sendAt) : undefined;
  // A paused campaign keeps the time it was scheduled for, now past: only a new time must be ahead.
  const scheduleChanged = existing === undefined || (sendAt ?? null) !== (existing.send_at === null ? null : new Date(existing.send_at).toISOString())
    && !(draft.schedule === 'at' && draft.sendAt === localInput(existing.send_at));
  const pace = paceOf(draft.pace, t('errors.pace'), true);
  // "No limit" is its own choice: an empty field is not a limit, and a new campaign starts at herald's default.
  const domainPace = draft.domainUnlimited ? { value: null, error: undefined }
    : paceOf(draft.domainPace, t('errors.domainPace'), false);

  const errors = {
    name: draft.name.trim() === '' ? t('errors.name') : undefined,
    audience: audienceEditable && !audienceBody.ok ? audienceBody.error : undefined,
    sendAt: draft.schedule === 'at' && scheduleChanged && (sendAt === undefined || Date.parse(sendAt) <= Date.now()) ? t('errors.sendAt') : undefined,
    pace: pace.error,
    domainPace: domainPace.error,
    variables: draft.mode === 'template' && variables.badLine !== undefined ? t('errors.sampleLine', { line: variables.badLine }) : undefined,
  };

  const save = useMutation({
    mutationFn: () => {
      const content = draft.mode === 'body' ? { body: draft.body } : { template_id: draft.templateId, variables: variables.variables };
      const body: Partial<CampaignInput> = {
        name: draft.name.trim(), subject: draft.subject,
        from: { email: draft.fromEmail.trim(), name: draft.fromName.trim() },
        replyTo: { email: draft.replyEmail.trim(), name: draft.replyName.trim() },
        ...content,
        ...(scheduleChanged ? { send_at: sendAt ?? null } : {}),
        messages_per_minute: pace.value,
        messages_per_minute_per_domain: domainPace.value,
        ...(audienceEditable && audienceBody.ok
          ? { lists: audienceBody.value.lists, exclude_lists: audienceBody.value.exclude_lists ?? [], filter: audienceBody.value.filter ?? null }
          : {}),
      };
      return existing === undefined
        ? createCampaign(body)
        : updateCampaign(existing.campaign_id, body);
    },
    onSuccess: (saved) => {
      client.setQueryData(campaignKeys.detail(saved.campaign_id), saved);
      void client.invalidateQueries({ queryKey: campaignKeys.all });
      void client.invalidateQueries({ queryKey: campaignKeys.quote(saved.campaign_id) });
      discard();
      allowNextLeave(); // saved: nothing is left to lose
      navigate(`/campaigns/${saved.campaign_id}`, { replace: existing !== undefined });
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (Object.values(errors).some((e) => e !== undefined)) return;
    save.mutate();
  };
  const set = (field: keyof Draft) => (event: { target: { value: string } }) => setDraft({ ...draft, [field]: event.target.value });
  // The first chosen list's sender is the natural default for a new campaign.
  const listSender = lists.data?.lists.find((l) => audience.lists.includes(l.list_id) && l.from !== null)?.from ?? undefined;
  const useListSender = (): void => {
    if (listSender === undefined) return;
    setDraft({ ...draft, fromEmail: listSender.email, fromName: listSender.name, replyEmail: draft.replyEmail || listSender.email, replyName: draft.replyName || listSender.name });
  };

  const title = existing === undefined ? t('titleNew') : t('titleEdit', { name: existing.name });
  const back = existing === undefined ? <Link to="/campaigns">← {t('allCampaigns')}</Link> : <Link to={`/campaigns/${existing.campaign_id}`}>← {t('backToCampaign')}</Link>;
  if (!canWrite || !editable) {
    return (
      <Page title={title} description={back}>
        <p className="notice">{canWrite ? t('notEditable', { status: existing?.status ?? '' }) : t('readOnly')}</p>
      </Page>
    );
  }
  return (
    <Page title={title} description={back}>
      {givenBack ? (
        <p className="notice row" role="status">
          <span>{t('givenBack')}</span>
          <button type="button" className="button secondary small" onClick={startOver}>{t('startOver')}</button>
        </p>
      ) : null}
      <form onSubmit={submit} noValidate>
        <Section title={t('sections.message')} id="message">
          <div className="form-grid">
            <div className="span-2">
              <TextField label={t('fields.name')} value={draft.name} onChange={set('name')} maxLength={200} error={touched ? errors.name : undefined} placeholder={t('fields.namePlaceholder')} />
            </div>
            <TextField label={t('fields.fromEmail')} type="email" value={draft.fromEmail} onChange={set('fromEmail')} hint={t('fields.fromEmailHint')} />
            <TextField label={t('fields.fromName')} value={draft.fromName} onChange={set('fromName')} />
            <TextField label={t('fields.replyEmail')} type="email" value={draft.replyEmail} onChange={set('replyEmail')} />
            <TextField label={t('fields.replyName')} value={draft.replyName} onChange={set('replyName')} />
            {listSender !== undefined && draft.fromEmail === '' ? (
              <p className="span-2 hint">{t('listSender', { name: listSender.name, email: listSender.email })} <button type="button" className="link-button" onClick={useListSender}>{t('useListSender')}</button></p>
            ) : null}
            <div className="span-2">
              <TextField label={t('fields.subject')} value={draft.subject} onChange={set('subject')} hint={t('fields.subjectHint', { example: '{{contact.name}}' })} />
            </div>
          </div>
          <fieldset className="checkbox-group">
            <legend>{t('content.legend')}</legend>
            <div className="choice-row">
              <label className="checkbox"><input type="radio" name="content-mode" checked={draft.mode === 'body'} onChange={() => setDraft({ ...draft, mode: 'body' })} /> {t('content.body')}</label>
              <label className="checkbox"><input type="radio" name="content-mode" checked={draft.mode === 'template'} onChange={() => setDraft({ ...draft, mode: 'template' })} /> {t('content.template')}</label>
            </div>
          </fieldset>
          {draft.mode === 'body' ? (
            <TextArea label={t('fields.body')} className="code-input" rows={10} value={draft.body} onChange={set('body')} spellCheck={false}
              hint={t('fields.bodyHint')} />
          ) : (
            <>
              <SelectField label={t('fields.template')} value={draft.templateId} onChange={set('templateId')}
                hint={templates.data?.templates.length === 0 ? <>{t('fields.noTemplates')} <Link to="/templates/new">{t('fields.makeTemplate')}</Link></> : undefined}>
                <option value="">{templates.isPending ? t('common:loading') : t('fields.chooseTemplate')}</option>
                {(templates.data?.templates ?? []).map((template) => <option key={template.template_id} value={template.template_id}>{template.name}</option>)}
              </SelectField>
              {templates.isError ? <ErrorNotice error={templates.error} onRetry={() => void templates.refetch()} /> : null}
              <TextArea label={t('fields.variables')} className="code-input" rows={3} value={draft.variables} onChange={set('variables')} spellCheck={false}
                hint={t('fields.variablesHint')} error={touched ? errors.variables : undefined} />
            </>
          )}
          <details className="chart-table">
            <summary>{t('placeholders.summary')}</summary>
            <dl className="syntax">
              {PLACEHOLDERS.map(([code, meaning]) => <div key={code}><dt><code>{code}</code></dt><dd>{t(meaning)}</dd></div>)}
            </dl>
            <p className="hint">{t('placeholders.hint')}</p>
          </details>
        </Section>
        <Section title={t('sections.preview')} id="preview">
          <ContactPreview audience={audience} subject={draft.subject} body={draft.mode === 'body' ? draft.body : undefined}
            templateId={draft.mode === 'template' && draft.templateId !== '' ? draft.templateId : undefined} variables={variables.variables} />
        </Section>
        <Section title={t('sections.audience')} id="audience">
          {audienceEditable ? null : <p className="notice">{t('audienceFixed')}</p>}
          <AudienceEditor value={audience} onChange={setAudience} disabled={!audienceEditable} />
          {touched && errors.audience !== undefined ? <p className="field-error">{errors.audience}</p> : null}
          {audienceEditable ? <SegmentCount audience={audience} /> : null}
        </Section>
        <Section title={t('sections.schedule')} id="schedule-and-pace">
          <fieldset className="checkbox-group">
            <legend>{t('schedule.legend')}</legend>
            <div className="choice-row">
              <label className="checkbox"><input type="radio" name="schedule" checked={draft.schedule === 'send'} onChange={() => setDraft({ ...draft, schedule: 'send' })} /> {t('schedule.onSend')}</label>
              <label className="checkbox"><input type="radio" name="schedule" checked={draft.schedule === 'at'} onChange={() => setDraft({ ...draft, schedule: 'at' })} /> {t('schedule.at')}</label>
            </div>
          </fieldset>
          <div className="form-grid">
            {draft.schedule === 'at' ? (
              <TextField label={t('schedule.sendAt')} type="datetime-local" value={draft.sendAt} onChange={set('sendAt')} hint={t('schedule.sendAtHint')}
                error={touched ? errors.sendAt : undefined} />
            ) : null}
            <TextField label={t('schedule.pace')} type="number" min={1} max={1000000} inputMode="numeric" value={draft.pace} onChange={set('pace')}
              hint={t('schedule.paceHint')} error={touched ? errors.pace : undefined} />
            <div>
              <TextField label={t('schedule.domainPace')} type="number" min={1} max={1000000} inputMode="numeric" value={draft.domainPace} onChange={set('domainPace')}
                disabled={draft.domainUnlimited} hint={t('schedule.domainPaceHint')}
                error={touched ? errors.domainPace : undefined} />
              <label className="checkbox"><input type="checkbox" checked={draft.domainUnlimited} onChange={(e) => setDraft({ ...draft, domainUnlimited: e.target.checked })} /> {t('schedule.noDomainLimit')}</label>
            </div>
          </div>
        </Section>
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        <div className="row">
          <button type="submit" className="button" disabled={save.isPending}>{existing === undefined ? t('saveDraft') : t('saveChanges')}</button>
          <span className="hint">{t('nothingSent')}</span>
        </div>
      </form>
    </Page>
  );
}
