import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { createWhatsappTemplate } from '../api/compose.ts';
import { allows, useSession } from '../api/session.ts';
import { templateKeys, whatsappTemplatesQuery } from '../api/templates.ts';
import type { WhatsappTemplateView } from '../api/types.ts';
import { DataTable } from '../components/data-table.tsx';
import { SelectField, TextArea, TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import './compose.css';

const CATEGORIES = ['UTILITY', 'MARKETING', 'AUTHENTICATION'] as const;

/**
 * The account's WhatsApp templates and their approval status; a new one is submitted to
 * Meta for approval when the account's WhatsApp Business account is configured, else kept
 * as PENDING in herald (docs/whatsapp-templates.md).
 */
export default function WhatsappTemplatesPage() {
  const { t } = useTranslation('whatsappTemplates');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const templates = useQuery(whatsappTemplatesQuery);
  return (
    <Page title={t('title')} description={t('description')}>
      <Section title={t('list.title')} id="whatsapp-template-list">
        <QueryState query={templates} isEmpty={(data) => data.templates.length === 0} empty={<Empty title={t('list.empty')} />}>
          {(data) => <TemplateTable rows={data.templates} />}
        </QueryState>
      </Section>
      {canWrite ? <NewTemplate /> : null}
    </Page>
  );
}

function TemplateTable(props: { rows: readonly WhatsappTemplateView[] }) {
  const { t } = useTranslation('whatsappTemplates');
  return (
    <DataTable caption={t('list.caption')} rows={props.rows} rowKey={(x) => x.templateId} columns={[
      { header: t('field.name'), cell: (x) => x.name },
      { header: t('field.language'), cell: (x) => x.language },
      { header: t('field.category'), cell: (x) => t(`category.${x.category}`) },
      { header: t('field.status'), cell: (x) => <StatusBadge status={x.status} /> },
      { header: t('field.submission'), cell: (x) => (x.submissionError === null ? t(`submission.${x.submission}`) : `${t(`submission.${x.submission}`)}: ${x.submissionError}`) },
      { header: t('field.body'), cellClassName: 'whatsapp-template-body', cell: (x) => x.body },
    ]} />
  );
}

function NewTemplate() {
  const { t } = useTranslation('whatsappTemplates');
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en_US');
  const [category, setCategory] = useState<string>('UTILITY');
  const [header, setHeader] = useState('');
  const [body, setBody] = useState('');
  const [footer, setFooter] = useState('');
  const create = useMutation({
    mutationFn: () => createWhatsappTemplate({
      name: name.trim(), language: language.trim(), category, body,
      ...(header.trim() === '' ? {} : { header }), ...(footer.trim() === '' ? {} : { footer }),
    }),
    onSuccess: async () => {
      setName('');
      setHeader('');
      setBody('');
      setFooter('');
      await client.invalidateQueries({ queryKey: templateKeys.whatsapp });
    },
  });
  const done = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (create.isSuccess) done.current?.focus();
  }, [create.isSuccess, create.data]);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (!create.isPending) create.mutate();
  };
  return (
    <Section title={t('new.title')} id="whatsapp-template-new">
      <form onSubmit={submit} noValidate>
        <div className="compose-grid">
          <TextField label={t('field.name')} value={name} onChange={(e) => setName(e.target.value)} hint={t('new.nameHint')} autoComplete="off" />
          <TextField label={t('field.language')} value={language} onChange={(e) => setLanguage(e.target.value)} hint={t('new.languageHint')} autoComplete="off" />
          <SelectField label={t('field.category')} value={category} onChange={(e) => setCategory(e.target.value)}>
            {CATEGORIES.map((c) => <option key={c} value={c}>{t(`category.${c}`)}</option>)}
          </SelectField>
        </div>
        <TextField label={t('field.header')} value={header} onChange={(e) => setHeader(e.target.value)} hint={t('new.optional')} autoComplete="off" />
        <TextArea label={t('field.body')} rows={5} value={body} onChange={(e) => setBody(e.target.value)} hint={t('new.bodyHint', { first: '{{1}}', second: '{{2}}' })} />
        <TextField label={t('field.footer')} value={footer} onChange={(e) => setFooter(e.target.value)} hint={t('new.optional')} autoComplete="off" />
        {create.isError ? <ErrorNotice error={create.error} /> : null}
        <button type="submit" className="button" disabled={create.isPending}>{create.isPending ? t('new.submitting') : t('new.submit')}</button>
        {create.isSuccess ? (
          <p className="notice" role="status" tabIndex={-1} ref={done}>
            {t(`new.done.${create.data.submission}`, { name: create.data.name, status: create.data.status })}
          </p>
        ) : null}
      </form>
    </Section>
  );
}
