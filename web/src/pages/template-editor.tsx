import * as Ariakit from '@ariakit/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../api/http.ts';
import { allows, useSession } from '../api/session.ts';
import { createTemplate, deleteTemplate, renderTemplate, replaceTemplate, templateKeys, templateQuery } from '../api/templates.ts';
import type { EmailTemplateView, Rendered } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { allowNextLeave, useFormDraft } from '../lib/form-draft.ts';
import { parseSampleVariables } from '../lib/sample-variables.ts';
import { useDebounced } from '../lib/use-debounced.ts';
import { SendTest } from './template-send-test.tsx';

// The placeholders herald accepts (docs/templates.md), each with the key of its meaning.
const SYNTAX: readonly [string, string][] = [
  ['{{name}}', 'variable'],
  ['{{contact.name}}', 'dotted'],
  ['{{#if name}}…{{else}}…{{/if}}', 'if'],
  ['{{#unless name}}…{{/unless}}', 'unless'],
  ['{{! comment }}', 'comment'],
];

const STARTER = '<p>Hello {{name}},</p>\n<p>Your order {{order}} is on its way.</p>';

interface Draft { name: string; subject: string; html: string; text: string }

const sameDraft = (a: Draft, b: Draft): boolean => a.name === b.name && a.subject === b.subject && a.html === b.html && a.text === b.text;

export default function TemplateEditorPage() {
  const templateId = useParams().templateId;
  const template = useQuery({
    ...templateQuery(templateId),
    enabled: templateId !== undefined,
  });
  if (templateId === undefined) return <Editor />;
  return (
    <QueryState query={template}>{(found) => <Editor key={found.template_id} template={found} />}</QueryState>
  );
}

const draftOf = (template: EmailTemplateView | undefined): Draft => ({
  name: template?.name ?? '', subject: template?.subject ?? '', html: template?.html ?? STARTER, text: template?.text ?? '',
});

function Editor(props: { template?: EmailTemplateView }) {
  const { t } = useTranslation('templates');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const client = useQueryClient();
  const navigate = useNavigate();
  const existing = props.template;
  // What is saved: the draft differs from it while there are unsaved edits.
  const [saved, setSaved] = useState<Draft>(() => draftOf(existing));
  const [draft, setDraft] = useState<Draft>(saved);
  const [samples, setSamples] = useState('name=Ana\norder=A-1001');
  const [touched, setTouched] = useState(false);
  const [savedAt, setSavedAt] = useState<string | undefined>();
  const [deleting, setDeleting] = useState(false);
  const sample = useMemo(() => parseSampleVariables(samples), [samples]);

  // Unsaved edits are kept in the tab (an ended session or a reload gives them back) and leaving asks first.
  const dirty = canWrite && !sameDraft(draft, saved);
  const restore = useCallback((kept: Draft) => setDraft(kept), []);
  const kept = useFormDraft(`template:${existing?.template_id ?? 'new'}`, draft, dirty, restore, t('editor.leaveQuestion'));

  // herald renders the preview with the renderer POST /v1/email uses, a moment after typing stops.
  const input = useMemo(() => ({ draft, variables: sample.variables }), [draft, sample]);
  const settled = useDebounced(input, 350);
  const preview = useQuery({
    queryKey: templateKeys.render(settled),
    queryFn: () => renderTemplate({
      html: settled.draft.html, variables: settled.variables,
      ...(settled.draft.subject === '' ? {} : { subject: settled.draft.subject }),
      ...(settled.draft.text === '' ? {} : { text: settled.draft.text }),
    }),
    enabled: settled.draft.html !== '',
    placeholderData: (previous) => previous,
    retry: false,
  });
  const syntaxError = preview.error instanceof ApiError && preview.error.status === 400 ? preview.error : undefined;
  const stale = settled !== input;
  // The last preview that rendered stays in view while the source has an error.
  const [lastGood, setLastGood] = useState<Rendered | undefined>();
  useEffect(() => {
    if (preview.isSuccess && !preview.isPlaceholderData) setLastGood(preview.data);
  }, [preview.isSuccess, preview.isPlaceholderData, preview.data]);

  const save = useMutation({
    mutationFn: () => {
      const body = { name: draft.name.trim(), html: draft.html, subject: draft.subject === '' ? null : draft.subject, text: draft.text === '' ? null : draft.text };
      return existing === undefined
        ? createTemplate(body)
        : replaceTemplate(existing.template_id, body);
    },
    onSuccess: (stored) => {
      kept.discard();
      setSaved(draft);
      setSavedAt(stored.updated_at);
      void client.invalidateQueries({ queryKey: templateKeys.all });
      client.setQueryData(templateKeys.detail(stored.template_id), stored);
      if (existing === undefined) {
        allowNextLeave();
        navigate(`/templates/${stored.template_id}`, { replace: true });
      }
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteTemplate(existing?.template_id ?? ''),
    onSuccess: () => {
      kept.discard();
      void client.invalidateQueries({ queryKey: templateKeys.all });
      allowNextLeave();
      navigate('/templates', { replace: true });
    },
  });
  useEffect(() => setSavedAt(undefined), [draft]);

  const nameError = draft.name.trim() === '' ? t('editor.nameRequired') : undefined;
  const htmlError = draft.html.trim() === '' ? t('editor.htmlRequired') : undefined;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (nameError !== undefined || htmlError !== undefined || syntaxError !== undefined || stale) return;
    save.mutate();
  };
  const set = (field: keyof Draft) => (event: { target: { value: string } }) => setDraft({ ...draft, [field]: event.target.value });

  return (
    <Page title={existing === undefined ? t('editor.newTitle') : existing.name} description={<Link to="/templates">{t('editor.back')}</Link>}>
      {existing === undefined ? null : (
        <div className="card compact"><p className="label-line">{t('editor.templateIdLabel')}</p><CopyValue value={existing.template_id} label={t('editor.theTemplateId')} /></div>
      )}
      <div className="editor">
        <form onSubmit={submit} noValidate className="editor-form card">
          <h2 className="visually-hidden">{t('editor.formHeading')}</h2>
          <TextField label={t('editor.name')} value={draft.name} onChange={set('name')} error={touched ? nameError : undefined} readOnly={!canWrite} maxLength={200} />
          <TextField label={t('editor.subject')} value={draft.subject} onChange={set('subject')} readOnly={!canWrite} hint={t('editor.subjectHint')} />
          <TextArea label={t('editor.html')} className="code-input" rows={10} value={draft.html} onChange={set('html')} readOnly={!canWrite} spellCheck={false}
            error={touched ? htmlError : undefined} />
          <TextArea label={t('editor.text')} className="code-input" rows={4} value={draft.text} onChange={set('text')} readOnly={!canWrite} spellCheck={false}
            hint={t('editor.textHint')} />
          {syntaxError === undefined ? null : (
            <div className="state error" role="alert">
              {/* herald's own texts, as herald wrote them: the interface's message and the place it names. */}
              <p><strong>{syntaxError.message}</strong>{syntaxError.detail === undefined ? null : <> — <code>{syntaxError.detail}</code></>}</p>
              <p className="hint">{lastGood === undefined ? t('editor.syntaxFix') : t('editor.syntaxFixKept')}</p>
            </div>
          )}
          {save.isError ? <ErrorNotice error={save.error} /> : null}
          {savedAt === undefined ? null : <p className="notice" role="status">{t('editor.saved')}</p>}
          {canWrite ? (
            <div className="row">
              <button type="submit" className="button" disabled={save.isPending || syntaxError !== undefined}>{existing === undefined ? t('editor.saveNew') : t('editor.saveChanges')}</button>
              {stale || preview.isFetching ? <span className="muted small" role="status">{t('editor.checking')}</span> : null}
              {dirty && existing !== undefined ? <span className="muted small">{t('editor.unsaved')}</span> : null}
              {existing === undefined ? null : (
                <button type="button" className="button secondary" onClick={() => { remove.reset(); setDeleting(true); }}>{t('editor.delete')}</button>
              )}
            </div>
          ) : <p className="notice">{t('editor.readOnly')}</p>}
        </form>
        <div className="editor-side">
          <Section title={t('editor.preview')}>
            <TextArea label={t('editor.samples')} className="code-input" rows={3} value={samples} onChange={(e) => setSamples(e.target.value)} spellCheck={false}
              hint={t('editor.samplesHint')} error={sample.badLine === undefined ? undefined : t('editor.sampleLine', { line: sample.badLine })} />
            {syntaxError !== undefined && lastGood !== undefined ? <p className="notice">{t('editor.lastGood')}</p> : null}
            <PreviewPanes preview={syntaxError === undefined ? preview.data : lastGood} pending={preview.isPending && preview.fetchStatus !== 'idle'}
              error={syntaxError === undefined ? preview.error : null} />
          </Section>
          <Section title={t('editor.syntaxTitle')}>
            <dl className="syntax">
              {SYNTAX.map(([code, meaning]) => <div key={code}><dt><code>{code}</code></dt><dd>{t(`syntax.${meaning}`)}</dd></div>)}
            </dl>
            <p className="hint">{t('editor.syntaxHint')}</p>
          </Section>
          {existing === undefined || !canWrite ? null : <SendTest template={existing} variables={sample.variables} subject={draft.subject} />}
        </div>
      </div>
      {existing === undefined ? null : (
        <ConfirmDialog open={deleting} onClose={() => setDeleting(false)} title={t('delete.title')} confirmLabel={t('delete.confirm')} danger
          busy={remove.isPending} onConfirm={() => remove.mutate()}>
          <p>{t('delete.text', { name: existing.name })}</p>
          {remove.isError ? <ErrorNotice error={remove.error} /> : null}
        </ConfirmDialog>
      )}
    </Page>
  );
}

const HTML_TAB = 'preview-html';
const TEXT_TAB = 'preview-text';

function PreviewPanes(props: { preview: Rendered | undefined; pending: boolean; error: unknown }) {
  const { t } = useTranslation('templates');
  if (props.error !== null && props.error !== undefined) return <ErrorNotice error={props.error} />;
  if (props.preview === undefined) return props.pending ? <Loading label={t('preview.rendering')} /> : <p className="muted">{t('preview.empty')}</p>;
  return (
    <Ariakit.TabProvider defaultSelectedId={HTML_TAB}>
      <p className="preview-subject"><span className="muted">{t('preview.subject')}</span> {props.preview.subject === '' ? <span className="muted">{t('preview.noSubject')}</span> : props.preview.subject}</p>
      <Ariakit.TabList className="tabs" aria-label={t('preview.format')}>
        <Ariakit.Tab className="tab" id={HTML_TAB}>{t('preview.htmlTab')}</Ariakit.Tab>
        <Ariakit.Tab className="tab" id={TEXT_TAB}>{t('preview.textTab')}</Ariakit.Tab>
      </Ariakit.TabList>
      <Ariakit.TabPanel tabId={HTML_TAB} className="tab-panel">
        {/* No allow-scripts, no allow-same-origin: the preview runs nothing and reads nothing of the app. */}
        {props.preview.html === null ? <p className="muted">{t('preview.noHtml')}</p>
          : <iframe className="email-frame" title={t('preview.frameTitle')} sandbox="" srcDoc={props.preview.html} />}
        {/* The frame inherits the app's CSP (no inline styles); a message page shows the email with its styles. */}
        <p className="hint">{t('preview.stylesHint')}</p>
      </Ariakit.TabPanel>
      <Ariakit.TabPanel tabId={TEXT_TAB} className="tab-panel">
        <pre className="text-preview" tabIndex={0}>{props.preview.text}</pre>
      </Ariakit.TabPanel>
    </Ariakit.TabProvider>
  );
}
