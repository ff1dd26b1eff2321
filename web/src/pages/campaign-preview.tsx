import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { campaignKeys } from '../api/campaigns.ts';
import { sampleSegment, segmentKeys } from '../api/segments.ts';
import { renderTemplate, templateQuery } from '../api/templates.ts';
import type { RenderInput, SegmentSample, SegmentRequest } from '../api/types.ts';
import { SelectField } from '../components/field.tsx';
import { ErrorNotice, Loading } from '../components/query-state.tsx';
import { useDebounced } from '../lib/use-debounced.ts';
import { segmentRequestOf, type Audience } from './segments-model.ts';

// The campaign as one contact of its audience would get it, rendered by herald's own
// renderer (POST /v1/email/templates/render). A campaign reads the contact as
// {{contact.name}} and friends; the renderer takes them in the bracket form
// {{[contact.name]}} (one variable whose name holds dots), which is what herald's
// campaign content does before rendering (src/campaigns/campaign-content.ts).
const CONTACT_PATH = /\{\{(~?\s*(?:#if\s+|#unless\s+|else\s+if\s+)?)(contact(?:\.[A-Za-z0-9_-]+)+)(\s*~?)\}\}/g;
const bracketed = (source: string): string => source.replace(CONTACT_PATH, (_all, before: string, path: string, after: string) => `{{${before}[${path}]${after}}}`);
const HAS_MARKUP = /<\/?[a-z][a-z0-9-]*(\s[^>]*)?\/?>/i;
const PLACES_UNSUBSCRIBE = /\{\{~?\s*unsubscribe_url\s*~?\}\}/;

/** The placeholder a campaign places its unsubscribe link with, as written. */
const UNSUBSCRIBE_PLACEHOLDER = '{{unsubscribe_url}}';
/** The contact as the campaign's variables: contact.email, contact.name, contact.attributes.<path> (text, numbers, booleans). */
function contactVariables(contact: SegmentSample['contacts'][number] | undefined): Record<string, string> {
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

/** The campaign previewed as a contact of its own audience (its lists, minus excluded lists, narrowed by its filter). */
export function ContactPreview(props: { audience: Audience; subject: string; body: string | undefined; templateId: string | undefined; variables: Record<string, string> }) {
  const { t } = useTranslation('audience');
  const [chosen, setChosen] = useState('');
  const built = segmentRequestOf(props.audience);
  // Asked again only when the audience settles: equal audiences are equal strings.
  const audience = useDebounced(built.ok ? JSON.stringify(built.value) : undefined, 400);
  const contacts = useQuery({
    queryKey: segmentKeys.sample(audience),
    queryFn: () => sampleSegment(JSON.parse(audience ?? '{}') as SegmentRequest),
    enabled: audience !== undefined,
    placeholderData: (previous) => previous,
    retry: false,
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

  if (props.audience.lists.length === 0) return <p className="muted">{t('preview.chooseList')}</p>;
  return (
    <div className="contact-preview">
      {contacts.isError ? <ErrorNotice error={contacts.error} onRetry={() => void contacts.refetch()} /> : (
        <SelectField label={t('preview.as')} value={contact?.contact_id ?? ''} onChange={(e) => setChosen(e.target.value)}
          hint={contacts.data?.contacts.length === 0 ? t('preview.emptyAudience') : t('preview.hint')}>
          {(contacts.data?.contacts ?? []).map((c) => <option key={c.contact_id} value={c.contact_id}>{c.name === null ? c.email : `${c.name} <${c.email}>`}</option>)}
          {contacts.data?.contacts.length === 0 ? <option value="">{t('preview.noContact')}</option> : null}
        </SelectField>
      )}
      {template.isError ? <ErrorNotice error={template.error} /> : null}
      {input === undefined ? <p className="muted">{t('preview.writeBody')}</p>
        : rendered.isError ? <ErrorNotice error={rendered.error} />
          : rendered.data === undefined ? <Loading label={t('preview.rendering')} /> : (
            <>
              <p className="preview-subject"><span className="muted">{t('preview.subject')}</span> {rendered.data.subject === '' ? <span className="muted">{t('preview.noSubject')}</span> : rendered.data.subject}</p>
              {/* No allow-scripts, no allow-same-origin: the preview runs nothing and reads nothing of the app. */}
              {rendered.data.html === null || rendered.data.html === '' ? null : <iframe className="email-frame" title={t('preview.frame')} sandbox="" srcDoc={rendered.data.html} />}
              <details className="chart-table">
                <summary>{t('preview.textPart')}</summary>
                <pre className="text-preview" tabIndex={0}>{rendered.data.text}</pre>
              </details>
              {places ? null : <p className="hint">{t('preview.footerBefore')} {UNSUBSCRIBE_PLACEHOLDER}{t('preview.footerAfter')}</p>}
            </>
          )}
    </div>
  );
}
