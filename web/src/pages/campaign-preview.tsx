import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { campaignKeys } from '../api/campaigns.ts';
import { contactSampleQuery } from '../api/contacts.ts';
import { renderTemplate, templateQuery } from '../api/templates.ts';
import type { ContactSummary, RenderInput } from '../api/types.ts';
import { SelectField } from '../components/field.tsx';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { useDebounced } from '../lib/use-debounced.ts';

// The campaign as one contact of its audience would get it, rendered by herald's own
// renderer (POST /v1/email/templates/render). A campaign reads the contact as
// {{contact.name}} and friends; the renderer takes them in the bracket form
// {{[contact.name]}} (one variable whose name holds dots), which is what herald's
// campaign content does before rendering (src/campaigns/campaign-content.ts).
const CONTACT_PATH = /\{\{(~?\s*(?:#if\s+|#unless\s+|else\s+if\s+)?)(contact(?:\.[A-Za-z0-9_-]+)+)(\s*~?)\}\}/g;
const bracketed = (source: string): string => source.replace(CONTACT_PATH, (_all, before: string, path: string, after: string) => `{{${before}[${path}]${after}}}`);
const HAS_MARKUP = /<\/?[a-z][a-z0-9-]*(\s[^>]*)?\/?>/i;
const PLACES_UNSUBSCRIBE = /\{\{~?\s*unsubscribe_url\s*~?\}\}/;

/** The contact as the campaign's variables: contact.email, contact.name, contact.attributes.<path> (text, numbers, booleans). */
function contactVariables(contact: ContactSummary | undefined): Record<string, string> {
  if (contact === undefined) return {};
  const variables: Record<string, string> = { 'contact.email': contact.email };
  if (contact.name !== null) variables['contact.name'] = contact.name;
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') variables[path] = String(value);
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) walk(inner, `${path}.${key}`);
    }
  };
  walk(contact.attributes, 'contact.attributes');
  return variables;
}

export function ContactPreview(props: { listId: string | undefined; subject: string; body: string | undefined; templateId: string | undefined; variables: Record<string, string> }) {
  const [chosen, setChosen] = useState('');
  const contacts = useQuery({
    ...contactSampleQuery(props.listId),
    enabled: props.listId !== undefined,
  });
  const template = useQuery({
    ...templateQuery(props.templateId),
    enabled: props.templateId !== undefined && props.templateId !== '',
  });
  const contact = contacts.data?.contacts.find((c) => c.contact_id === chosen) ?? contacts.data?.contacts[0];

  const input = useMemo((): RenderInput | undefined => {
    let html: string | undefined;
    let text: string | undefined;
    if (props.templateId === undefined) {
      if (props.body === undefined || props.body.trim() === '') return undefined;
      if (HAS_MARKUP.test(props.body)) html = props.body;
      else text = props.body;
    } else {
      if (template.data === undefined) return undefined;
      html = template.data.html;
      text = template.data.text ?? undefined;
    }
    return {
      ...(html === undefined ? {} : { html: bracketed(html) }),
      ...(text === undefined ? {} : { text: bracketed(text) }),
      ...(props.subject.trim() === '' ? {} : { subject: bracketed(props.subject) }),
      variables: {
        ...(props.templateId === undefined ? {} : props.variables),
        ...contactVariables(contact),
        unsubscribe_url: `${window.location.origin}/u/preview`,
      },
    };
  }, [props.templateId, props.body, props.subject, props.variables, template.data, contact]);
  const settled = useDebounced(input, 400);
  const rendered = useQuery({
    queryKey: campaignKeys.preview(settled),
    queryFn: () => renderTemplate(settled ?? {}),
    enabled: settled !== undefined,
    placeholderData: (previous) => previous,
    retry: false,
  });
  const places = [props.body ?? '', template.data?.html ?? '', template.data?.text ?? ''].some((s) => PLACES_UNSUBSCRIBE.test(s));

  if (props.listId === undefined) return <p className="muted">Choose a list for the audience to preview the message as one of its contacts.</p>;
  return (
    <div className="contact-preview">
      {contacts.isError ? <ErrorNotice error={contacts.error} onRetry={() => void contacts.refetch()} /> : (
        <SelectField label="Preview as" value={contact?.contact_id ?? ''} onChange={(e) => setChosen(e.target.value)}
          hint={contacts.data?.contacts.length === 0 ? 'The first list has no contacts yet: the preview shows a contact without name or attributes.' : 'A contact of the first list chosen.'}>
          {(contacts.data?.contacts ?? []).map((c) => <option key={c.contact_id} value={c.contact_id}>{c.name === null ? c.email : `${c.name} <${c.email}>`}</option>)}
          {contacts.data?.contacts.length === 0 ? <option value="">no contact</option> : null}
        </SelectField>
      )}
      {template.isError ? <ErrorNotice error={template.error} /> : null}
      {input === undefined ? <p className="muted">Write the body or choose a template to see it here.</p>
        : rendered.isError ? <ErrorNotice error={rendered.error} />
          : rendered.data === undefined ? <Loading label="Rendering…" /> : (
            <>
              <p className="preview-subject"><span className="muted">Subject:</span> {rendered.data.subject === '' ? <span className="muted">(none)</span> : rendered.data.subject}</p>
              {/* No allow-scripts, no allow-same-origin: the preview runs nothing and reads nothing of the app. */}
              {rendered.data.html === null || rendered.data.html === '' ? null : <iframe className="email-frame" title="Preview of the message" sandbox="" srcDoc={rendered.data.html} />}
              <details className="chart-table">
                <summary>The text part</summary>
                <pre className="text-preview" tabIndex={0}>{rendered.data.text}</pre>
              </details>
              {places ? null : <p className="hint">The content has no {'{{unsubscribe_url}}'}: herald adds a footer with the unsubscribe link to every message.</p>}
            </>
          )}
    </div>
  );
}
