import * as Ariakit from '@ariakit/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../api/http.ts';
import { allows, useSession } from '../api/session.ts';
import { createTemplate, renderTemplate, replaceTemplate, templateKeys, templateQuery } from '../api/templates.ts';
import type { EmailTemplateView, Rendered } from '../api/types.ts';
import { CopyValue } from '../components/copy-button.tsx';
import { TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { parseSampleVariables } from '../lib/sample-variables.ts';
import { useDebounced } from '../lib/use-debounced.ts';
import { SendTest } from './template-send-test.tsx';

const SYNTAX: readonly [string, string][] = [
  ['{{name}}', 'the variable, HTML-escaped in HTML, as is in text and subject'],
  ['{{#if name}}…{{else}}…{{/if}}', 'when the variable is set and not empty'],
  ['{{#unless name}}…{{/unless}}', 'when it is missing or empty'],
  ['{{! comment }}', 'left out of the message'],
];

const STARTER = '<p>Hello {{name}},</p>\n<p>Your order {{order}} is on its way.</p>';

interface Draft { name: string; subject: string; html: string; text: string }

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

function Editor(props: { template?: EmailTemplateView }) {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const client = useQueryClient();
  const navigate = useNavigate();
  const existing = props.template;
  const [draft, setDraft] = useState<Draft>({
    name: existing?.name ?? '', subject: existing?.subject ?? '', html: existing?.html ?? STARTER, text: existing?.text ?? '',
  });
  const [samples, setSamples] = useState('name=Ana\norder=A-1001');
  const [touched, setTouched] = useState(false);
  const [savedAt, setSavedAt] = useState<string | undefined>();
  const sample = useMemo(() => parseSampleVariables(samples), [samples]);

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

  const save = useMutation({
    mutationFn: () => {
      const body = { name: draft.name.trim(), html: draft.html, subject: draft.subject === '' ? null : draft.subject, text: draft.text === '' ? null : draft.text };
      return existing === undefined
        ? createTemplate(body)
        : replaceTemplate(existing.template_id, body);
    },
    onSuccess: (saved) => {
      setSavedAt(saved.updated_at);
      void client.invalidateQueries({ queryKey: templateKeys.all });
      client.setQueryData(templateKeys.detail(saved.template_id), saved);
      if (existing === undefined) navigate(`/templates/${saved.template_id}`, { replace: true });
    },
  });
  useEffect(() => setSavedAt(undefined), [draft]);

  const nameError = draft.name.trim() === '' ? 'Give the template a name' : undefined;
  const htmlError = draft.html.trim() === '' ? 'The HTML body is required' : undefined;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (nameError !== undefined || htmlError !== undefined || syntaxError !== undefined || stale) return;
    save.mutate();
  };
  const set = (field: keyof Draft) => (event: { target: { value: string } }) => setDraft({ ...draft, [field]: event.target.value });

  return (
    <Page title={existing === undefined ? 'New email template' : existing.name} description={<Link to="/templates">← All templates</Link>}>
      {existing === undefined ? null : (
        <div className="card compact"><p className="label-line">template_id</p><CopyValue value={existing.template_id} label="the template_id" /></div>
      )}
      <div className="editor">
        <form onSubmit={submit} noValidate className="editor-form card">
          <h2 className="visually-hidden">Template</h2>
          <TextField label="Name" value={draft.name} onChange={set('name')} error={touched ? nameError : undefined} readOnly={!canWrite} maxLength={200} />
          <TextField label="Subject (optional)" value={draft.subject} onChange={set('subject')} readOnly={!canWrite} hint="Stored with the template; a send's own subject is the one used." />
          <TextArea label="HTML" className="code-input" rows={10} value={draft.html} onChange={set('html')} readOnly={!canWrite} spellCheck={false}
            error={touched ? htmlError : undefined} />
          <TextArea label="Plain text (optional)" className="code-input" rows={4} value={draft.text} onChange={set('text')} readOnly={!canWrite} spellCheck={false}
            hint="Left empty, herald makes the text part from the HTML." />
          {syntaxError === undefined ? null : (
            <div className="state error" role="alert">
              <p><strong>{syntaxError.message}</strong>{syntaxError.detail === undefined ? null : <> — {syntaxError.detail}</>}</p>
              <p className="hint">Fix the placeholder before saving; the syntax is listed beside the preview.</p>
            </div>
          )}
          {save.isError ? <ErrorNotice error={save.error} /> : null}
          {savedAt === undefined ? null : <p className="notice" role="status">Saved.</p>}
          {canWrite ? (
            <div className="row">
              <button type="submit" className="button" disabled={save.isPending || syntaxError !== undefined}>{existing === undefined ? 'Save template' : 'Save changes'}</button>
              {stale || preview.isFetching ? <span className="muted small" role="status">Checking…</span> : null}
            </div>
          ) : <p className="notice">Your role can read templates but not change them.</p>}
        </form>
        <div className="editor-side">
          <Section title="Preview">
            <TextArea label="Sample variables" className="code-input" rows={3} value={samples} onChange={(e) => setSamples(e.target.value)} spellCheck={false}
              hint="One name=value a line." error={sample.error} />
            <PreviewPanes preview={preview.data} pending={preview.isPending && preview.fetchStatus !== 'idle'} error={syntaxError === undefined ? preview.error : null} />
          </Section>
          <Section title="Placeholder syntax">
            <dl className="syntax">
              {SYNTAX.map(([code, meaning]) => <div key={code}><dt><code>{code}</code></dt><dd>{meaning}</dd></div>)}
            </dl>
            <p className="hint">Anything else in double braces is refused with “Incorrect variable syntax”. A missing variable renders empty.</p>
          </Section>
          {existing === undefined || !canWrite ? null : <SendTest template={existing} variables={sample.variables} subject={draft.subject} />}
        </div>
      </div>
    </Page>
  );
}

function PreviewPanes(props: { preview: Rendered | undefined; pending: boolean; error: unknown }) {
  if (props.error !== null && props.error !== undefined) return <ErrorNotice error={props.error} />;
  if (props.preview === undefined) return props.pending ? <Loading label="Rendering…" /> : <p className="muted">Write some HTML to see it rendered.</p>;
  return (
    <Ariakit.TabProvider defaultSelectedId="preview-html">
      <p className="preview-subject"><span className="muted">Subject:</span> {props.preview.subject === '' ? <span className="muted">(none)</span> : props.preview.subject}</p>
      <Ariakit.TabList className="tabs" aria-label="Preview format">
        <Ariakit.Tab className="tab" id="preview-html">HTML</Ariakit.Tab>
        <Ariakit.Tab className="tab" id="preview-text">Text</Ariakit.Tab>
      </Ariakit.TabList>
      <Ariakit.TabPanel tabId="preview-html" className="tab-panel">
        {/* No allow-scripts, no allow-same-origin: the preview runs nothing and reads nothing of the app. */}
        {props.preview.html === null ? <p className="muted">This template has no HTML part.</p>
          : <iframe className="email-frame" title="HTML preview" sandbox="" srcDoc={props.preview.html} />}
        {/* The frame inherits the app's CSP (no inline styles); a message page shows the email with its styles. */}
        <p className="hint">Inline styles and images are not applied here; send a test to see the email exactly as it goes out.</p>
      </Ariakit.TabPanel>
      <Ariakit.TabPanel tabId="preview-text" className="tab-panel">
        <pre className="text-preview" tabIndex={0}>{props.preview.text}</pre>
      </Ariakit.TabPanel>
    </Ariakit.TabProvider>
  );
}
