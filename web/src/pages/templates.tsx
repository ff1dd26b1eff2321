import { useQuery } from '@tanstack/react-query';
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
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const email = useQuery(templatesQuery);
  const whatsapp = useQuery(whatsappTemplatesQuery);
  return (
    <Page title="Templates" description={<>Send an email template with its <code>template_id</code> in POST /v1/email.</>}
      actions={canWrite ? <Link className="button" to="/templates/new">New email template</Link> : undefined}>
      <Section title="Email templates">
        <QueryState query={email} isEmpty={(d) => d.templates.length === 0}
          empty={<Empty title="No email templates yet">{canWrite ? <p><Link to="/templates/new">Write the first one</Link>: HTML with placeholders such as <code>{'{{name}}'}</code>.</p> : null}</Empty>}>
          {(data) => (
            <DataTable rows={data.templates} rowKey={(t) => t.template_id} columns={[
              { header: 'Name', cell: (t) => <Link to={`/templates/${t.template_id}`}>{t.name}</Link> },
              { header: 'template_id', cell: (t) => <span className="id-cell"><code className="small">{t.template_id}</code><CopyButton text={t.template_id} label={`Copy the template_id of ${t.name}`} /></span> },
              { header: 'Subject', cell: (t) => t.subject ?? <span className="muted">none</span> },
              { header: 'Updated', cell: (t) => <Time iso={t.updated_at} /> },
            ]} />
          )}
        </QueryState>
      </Section>
      <Section title="WhatsApp templates">
        <p className="lede">Approved by Meta outside herald and recorded by the operator; only approved ones can be sent.</p>
        <QueryState query={whatsapp} isEmpty={(d) => d.templates.length === 0} empty={<Empty title="No WhatsApp templates">Ask your operator to record the ones Meta approved.</Empty>}>
          {(data) => (
            <DataTable rows={data.templates} rowKey={(t) => t.templateId} columns={[
              { header: 'Name', cell: (t) => t.name },
              { header: 'templateId', cell: (t) => <span className="id-cell"><code className="small">{t.templateId}</code><CopyButton text={t.templateId} label={`Copy the templateId of ${t.name}`} /></span> },
              { header: 'Language', cell: (t) => t.language },
              { header: 'Body', cellClassName: 'wrap', cell: (t) => t.body },
              { header: 'Params', cellClassName: 'num', cell: (t) => t.paramCount },
              { header: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
            ]} />
          )}
        </QueryState>
      </Section>
    </Page>
  );
}
