import { useQuery } from '@tanstack/react-query';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { allows, useSession } from '../api/session.ts';
import { templatesQuery, whatsappTemplatesQuery } from '../api/templates.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { DataTable } from '../components/data-table.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';

export default function TemplatesPage() {
  const { t } = useTranslation('templates');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const email = useQuery(templatesQuery);
  const whatsapp = useQuery(whatsappTemplatesQuery);
  return (
    <Page title={t('list.title')} description={<Trans t={t} i18nKey="list.description" components={{ code: <code /> }} />}
      actions={canWrite ? <Link className="button" to="/templates/new">{t('list.new')}</Link> : undefined}>
      <Section title={t('list.email')}>
        <QueryState query={email} isEmpty={(d) => d.templates.length === 0}
          empty={<Empty title={t('list.emptyEmail')}>{canWrite ? <p><Trans t={t} i18nKey="list.emptyEmailHint" values={{ example: '{{name}}' }} components={{ link: <Link to="/templates/new" />, code: <code /> }} /></p> : null}</Empty>}>
          {(data) => (
            <DataTable rows={data.templates} rowKey={(row) => row.template_id} columns={[
              { header: t('list.name'), cell: (row) => <Link to={`/templates/${row.template_id}`}>{row.name}</Link> },
              { header: 'template_id', cell: (row) => <span className="id-cell"><code className="small">{row.template_id}</code><CopyButton text={row.template_id} label={t('list.copyTemplateId', { name: row.name })} /></span> },
              { header: t('list.subject'), cell: (row) => row.subject ?? <span className="muted">{t('list.noSubject')}</span> },
              { header: t('list.updated'), cell: (row) => <Time iso={row.updated_at} /> },
            ]} />
          )}
        </QueryState>
      </Section>
      <Section title={t('list.whatsapp')}>
        <p className="lede">{t('list.whatsappLede')}</p>
        <QueryState query={whatsapp} isEmpty={(d) => d.templates.length === 0} empty={<Empty title={t('list.emptyWhatsapp')}>{t('list.emptyWhatsappHint')}</Empty>}>
          {(data) => (
            <DataTable rows={data.templates} rowKey={(row) => row.templateId} columns={[
              { header: t('list.name'), cell: (row) => row.name },
              { header: 'templateId', cell: (row) => <span className="id-cell"><code className="small">{row.templateId}</code><CopyButton text={row.templateId} label={t('list.copyWhatsappId', { name: row.name })} /></span> },
              { header: t('list.language'), cell: (row) => row.language },
              { header: t('list.body'), cellClassName: 'wrap', cell: (row) => row.body },
              { header: t('list.params'), cellClassName: 'num', cell: (row) => row.paramCount },
              { header: t('list.status'), cell: (row) => <StatusBadge status={row.status} /> },
            ]} />
          )}
        </QueryState>
      </Section>
    </Page>
  );
}
