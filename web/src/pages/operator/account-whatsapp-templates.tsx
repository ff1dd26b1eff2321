import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { WHATSAPP_TEMPLATE_BODY_MAX, WHATSAPP_TEMPLATE_NAME_MAX } from '@herald/domain/text-limits.ts';
import { addWhatsappTemplate, operatorKeys, removeWhatsappTemplate, whatsappTemplatesQuery } from '../../api/operator/accounts.ts';
import type { WhatsappTemplateView } from '../../api/types.ts';
import { DataTable } from '../../components/data-table.tsx';
import { ConfirmDialog } from '../../components/dialog.tsx';
import { SelectField, TextArea, TextField } from '../../components/field.tsx';
import { Section } from '../../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../../components/query-state.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { useFocusOn } from '../../lib/use-focus-on.ts';

type Status = WhatsappTemplateView['status'];
const STATUSES: readonly Status[] = ['APPROVED', 'PENDING', 'REJECTED'];

/** The account's WhatsApp templates: listed whatever their status, recorded (approved at Meta or not), removed. */
export function AccountWhatsappTemplates(props: { id: string }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const templates = useQuery(whatsappTemplatesQuery(props.id));
  const [removing, setRemoving] = useState<WhatsappTemplateView | undefined>();
  const [done, setDone] = useState<{ text: string } | undefined>();
  const refresh = () => client.invalidateQueries({ queryKey: operatorKeys.whatsappTemplates(props.id) });
  const remove = useMutation({
    mutationFn: (template: WhatsappTemplateView) => removeWhatsappTemplate(props.id, template.templateId),
    onSuccess: async (_, template) => {
      setRemoving(undefined);
      await refresh();
      setDone({ text: t('whatsapp.removed', { name: template.name }) });
    },
  });
  const doneRef = useFocusOn<HTMLParagraphElement>(done);
  return (
    <Section title={t('whatsapp.title')} id="whatsapp-templates">
      {done === undefined ? null : <p className="notice" role="status" tabIndex={-1} ref={doneRef}>{done.text}</p>}
      <QueryState query={templates} isEmpty={(d) => d.templates.length === 0} empty={<Empty title={t('whatsapp.empty')} />}>
        {(data) => (
          <DataTable rows={data.templates} rowKey={(tpl) => tpl.templateId} columns={[
            { header: t('whatsapp.name'), cell: (tpl) => <>{tpl.name}<div className="muted mono small">{tpl.templateId}</div></> },
            { header: t('whatsapp.language'), cell: (tpl) => <code>{tpl.language}</code> },
            { header: t('whatsapp.body'), cell: (tpl) => tpl.body },
            { header: t('whatsapp.params'), num: true, cell: (tpl) => tpl.paramCount },
            { header: t('whatsapp.status'), cell: (tpl) => <StatusBadge status={tpl.status.toLowerCase()} /> },
            { header: t('whatsapp.actions'), hiddenHeader: true, cell: (tpl) => (
              <button type="button" className="button small danger" onClick={() => { setDone(undefined); setRemoving(tpl); }} aria-label={t('whatsapp.removeNamed', { name: tpl.name })}>{t('whatsapp.remove')}</button>
            ) },
          ]} />
        )}
      </QueryState>
      <ConfirmDialog open={removing !== undefined} onClose={() => { setRemoving(undefined); remove.reset(); }} title={t('whatsapp.removeTitle')}
        confirmLabel={t('whatsapp.removeConfirm')} danger busy={remove.isPending} onConfirm={() => removing !== undefined && remove.mutate(removing)}>
        <p>{t('whatsapp.removeBody', { name: removing?.name ?? '' })}</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
      <AddTemplate id={props.id} onAdded={async (template) => { await refresh(); setDone({ text: t('whatsapp.added', { name: template.name }) }); }} />
    </Section>
  );
}

function AddTemplate(props: { id: string; onAdded: (template: WhatsappTemplateView) => Promise<void> }) {
  const { t } = useTranslation('operator');
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en_US');
  const [body, setBody] = useState('');
  const [status, setStatus] = useState<Status>('APPROVED');
  const [touched, setTouched] = useState(false);
  const add = useMutation({
    mutationFn: () => addWhatsappTemplate(props.id, { name: name.trim(), language, body, status }),
    onSuccess: async (template) => {
      setName(''); setBody(''); setTouched(false);
      await props.onAdded(template);
    },
  });
  const nameError = name.trim() === '' ? t('whatsapp.nameMissing') : undefined;
  const languageError = /^[a-z]{2,3}(_[A-Z]{2})?$/.test(language) ? undefined : t('whatsapp.languageInvalid');
  const bodyError = body.trim() === '' ? t('whatsapp.bodyMissing') : undefined;
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setTouched(true);
    if (nameError === undefined && languageError === undefined && bodyError === undefined) add.mutate();
  };
  return (
    <>
      <h3>{t('whatsapp.addTitle')}</h3>
      <form onSubmit={submit} noValidate className="form-grid">
        <TextField label={t('whatsapp.name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={WHATSAPP_TEMPLATE_NAME_MAX}
          error={touched ? nameError : undefined} hint={t('whatsapp.nameLimit', { used: name.length, max: WHATSAPP_TEMPLATE_NAME_MAX })} />
        <TextField label={t('whatsapp.language')} value={language} onChange={(e) => setLanguage(e.target.value)} error={languageError} hint={t('whatsapp.languageHint')} />
        <div className="span-2">
          <TextArea label={t('whatsapp.body')} rows={3} value={body} onChange={(e) => setBody(e.target.value)} maxLength={WHATSAPP_TEMPLATE_BODY_MAX}
            error={touched ? bodyError : undefined} hint={t('whatsapp.bodyHint', { used: body.length, max: WHATSAPP_TEMPLATE_BODY_MAX, first: '{{1}}', second: '{{2}}' })} />
        </div>
        <SelectField label={t('whatsapp.status')} value={status} onChange={(e) => setStatus(e.target.value as Status)} hint={t('whatsapp.statusHint')}>
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </SelectField>
        {add.isError ? <div className="span-2"><ErrorNotice error={add.error} /></div> : null}
        <div className="span-2"><button type="submit" className="button" disabled={add.isPending}>{t('whatsapp.add')}</button></div>
      </form>
    </>
  );
}
