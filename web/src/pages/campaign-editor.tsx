import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { campaignKeys, campaignQuery, createCampaign, updateCampaign } from '../api/campaigns.ts';
import { listsQuery } from '../api/lists.ts';
import { allows, useSession } from '../api/session.ts';
import { templatesQuery } from '../api/templates.ts';
import type { CampaignInput, CampaignView } from '../api/types.ts';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice } from '../components/query-state.tsx';
import { isoFromLocalInput } from '../lib/format.ts';
import { parseSampleVariables } from '../lib/sample-variables.ts';
import { RecordPage } from './campaign-missing.tsx';
import { ContactPreview } from './campaign-preview.tsx';
import { AudienceEditor, SegmentCount } from './segments-builder.tsx';
import { audienceOf, EMPTY_AUDIENCE, segmentRequestOf, type Audience } from './segments-model.ts';
import './campaigns.css';

const STARTER = '<p>Hello {{contact.name}},</p>\n<p>Our news of the month…</p>\n<p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>';

const PLACEHOLDERS: readonly [string, string][] = [
  ['{{contact.email}}', 'the address'],
  ['{{contact.name}}', 'the name (empty when none)'],
  ['{{contact.attributes.city}}', 'an attribute, by its name'],
  ['{{unsubscribe_url}}', 'the one-click unsubscribe link; without it herald adds a footer with one'],
];

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
  const campaignId = useParams().campaignId;
  const campaign = useQuery({ ...campaignQuery(campaignId ?? ''), enabled: campaignId !== undefined });
  if (campaignId === undefined) return <Editor />;
  return (
    <RecordPage query={campaign} noun="campaign" id={campaignId} back="/campaigns" backLabel="All campaigns">
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

function Editor(props: { campaign?: CampaignView }) {
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
  const pace = paceOf(draft.pace, 'A whole number from 1 to 1,000,000, or empty', true);
  // "No limit" is its own choice: an empty field is not a limit, and a new campaign starts at herald's default.
  const domainPace = draft.domainUnlimited ? { value: null, error: undefined }
    : paceOf(draft.domainPace, 'A whole number from 1 to 1,000,000, or choose No limit', false);

  const errors = {
    name: draft.name.trim() === '' ? 'Give the campaign a name (only you see it)' : undefined,
    audience: audienceEditable && !audienceBody.ok ? audienceBody.error : undefined,
    sendAt: draft.schedule === 'at' && scheduleChanged && (sendAt === undefined || Date.parse(sendAt) <= Date.now()) ? 'Choose a time in the future' : undefined,
    pace: pace.error,
    domainPace: domainPace.error,
    variables: draft.mode === 'template' ? variables.error : undefined,
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

  const title = existing === undefined ? 'New campaign' : `Edit ${existing.name}`;
  const back = existing === undefined ? <Link to="/campaigns">← All campaigns</Link> : <Link to={`/campaigns/${existing.campaign_id}`}>← Back to the campaign</Link>;
  if (!canWrite || !editable) {
    return (
      <Page title={title} description={back}>
        <p className="notice">{canWrite ? `A ${existing?.status ?? ''} campaign cannot be changed.` : 'Your role can read campaigns but not change them.'}</p>
      </Page>
    );
  }
  return (
    <Page title={title} description={back}>
      <form onSubmit={submit} noValidate>
        <Section title="Message">
          <div className="form-grid">
            <div className="span-2">
              <TextField label="Campaign name" value={draft.name} onChange={set('name')} maxLength={200} error={touched ? errors.name : undefined} placeholder="July news" />
            </div>
            <TextField label="From address" type="email" value={draft.fromEmail} onChange={set('fromEmail')} hint="Of a verified sender domain." />
            <TextField label="From name" value={draft.fromName} onChange={set('fromName')} />
            <TextField label="Reply-to address" type="email" value={draft.replyEmail} onChange={set('replyEmail')} />
            <TextField label="Reply-to name" value={draft.replyName} onChange={set('replyName')} />
            {listSender !== undefined && draft.fromEmail === '' ? (
              <p className="span-2 hint">The list's sender is {listSender.name} &lt;{listSender.email}&gt;. <button type="button" className="link-button" onClick={useListSender}>Use it</button></p>
            ) : null}
            <div className="span-2">
              <TextField label="Subject" value={draft.subject} onChange={set('subject')} hint="May use the placeholders, as {{contact.name}}." />
            </div>
          </div>
          <fieldset className="checkbox-group">
            <legend>Content</legend>
            <div className="choice-row">
              <label className="checkbox"><input type="radio" name="content-mode" checked={draft.mode === 'body'} onChange={() => setDraft({ ...draft, mode: 'body' })} /> Write the body</label>
              <label className="checkbox"><input type="radio" name="content-mode" checked={draft.mode === 'template'} onChange={() => setDraft({ ...draft, mode: 'template' })} /> Use an email template</label>
            </div>
          </fieldset>
          {draft.mode === 'body' ? (
            <TextArea label="Body" className="code-input" rows={10} value={draft.body} onChange={set('body')} spellCheck={false}
              hint="HTML (when it has markup) or plain text." />
          ) : (
            <>
              <SelectField label="Template" value={draft.templateId} onChange={set('templateId')}
                hint={templates.data?.templates.length === 0 ? <>No templates yet: <Link to="/templates/new">make one</Link>.</> : undefined}>
                <option value="">{templates.isPending ? 'Loading…' : 'choose a template'}</option>
                {(templates.data?.templates ?? []).map((t) => <option key={t.template_id} value={t.template_id}>{t.name}</option>)}
              </SelectField>
              {templates.isError ? <ErrorNotice error={templates.error} onRetry={() => void templates.refetch()} /> : null}
              <TextArea label="Variables" className="code-input" rows={3} value={draft.variables} onChange={set('variables')} spellCheck={false}
                hint="One name=value a line, the same for every contact." error={touched ? errors.variables : undefined} />
            </>
          )}
          <details className="chart-table">
            <summary>Placeholders for each contact</summary>
            <dl className="syntax">
              {PLACEHOLDERS.map(([code, meaning]) => <div key={code}><dt><code>{code}</code></dt><dd>{meaning}</dd></div>)}
            </dl>
            <p className="hint">The preview below renders it for a contact of the audience; a test send from the campaign's page delivers it as each address's contact would get it.</p>
          </details>
        </Section>
        <Section title="Preview">
          <ContactPreview listId={audience.lists[0]} subject={draft.subject} body={draft.mode === 'body' ? draft.body : undefined}
            templateId={draft.mode === 'template' && draft.templateId !== '' ? draft.templateId : undefined} variables={variables.variables} />
        </Section>
        <Section title="Audience">
          {audienceEditable ? null : <p className="notice">The audience of a sent campaign is fixed (it was counted and billed at the send).</p>}
          <AudienceEditor value={audience} onChange={setAudience} disabled={!audienceEditable} />
          {touched && errors.audience !== undefined ? <p className="field-error">{errors.audience}</p> : null}
          {audienceEditable ? <SegmentCount audience={audience} /> : null}
        </Section>
        <Section title="Schedule and pace">
          <fieldset className="checkbox-group">
            <legend>When</legend>
            <div className="choice-row">
              <label className="checkbox"><input type="radio" name="schedule" checked={draft.schedule === 'send'} onChange={() => setDraft({ ...draft, schedule: 'send' })} /> When I press Send</label>
              <label className="checkbox"><input type="radio" name="schedule" checked={draft.schedule === 'at'} onChange={() => setDraft({ ...draft, schedule: 'at' })} /> At a time</label>
            </div>
          </fieldset>
          <div className="form-grid">
            {draft.schedule === 'at' ? (
              <TextField label="Send at" type="datetime-local" value={draft.sendAt} onChange={set('sendAt')} hint="Your local time. Sending it then schedules it; nothing leaves before."
                error={touched ? errors.sendAt : undefined} />
            ) : null}
            <TextField label="Messages per minute" type="number" min={1} max={1000000} inputMode="numeric" value={draft.pace} onChange={set('pace')}
              hint="Empty: as fast as herald sends." error={touched ? errors.pace : undefined} />
            <div>
              <TextField label="Messages per minute to one domain" type="number" min={1} max={1000000} inputMode="numeric" value={draft.domainPace} onChange={set('domainPace')}
                disabled={draft.domainUnlimited} hint="At most this many messages a minute to one recipient domain, e.g. gmail.com."
                error={touched ? errors.domainPace : undefined} />
              <label className="checkbox"><input type="checkbox" checked={draft.domainUnlimited} onChange={(e) => setDraft({ ...draft, domainUnlimited: e.target.checked })} /> No limit per domain</label>
            </div>
          </div>
        </Section>
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        <div className="row">
          <button type="submit" className="button" disabled={save.isPending}>{existing === undefined ? 'Save draft' : 'Save changes'}</button>
          <span className="hint">Nothing is sent until you press Send on the campaign's page.</span>
        </div>
      </form>
    </Page>
  );
}
