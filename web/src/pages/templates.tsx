import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { allows, useSession } from '../api/session.ts';
import { templatesQuery, whatsappTemplatesQuery } from '../api/templates.ts';
import { CopyButton } from '../components/copy-button.tsx';
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
            <div className="table-wrap" tabIndex={0}>
              <table>
                <thead><tr><th scope="col">Name</th><th scope="col">template_id</th><th scope="col">Subject</th><th scope="col">Updated</th></tr></thead>
                <tbody>
                  {data.templates.map((t) => (
                    <tr key={t.template_id}>
                      <th scope="row"><Link to={`/templates/${t.template_id}`}>{t.name}</Link></th>
                      <td><span className="id-cell"><code className="small">{t.template_id}</code><CopyButton text={t.template_id} label={`Copy the template_id of ${t.name}`} /></span></td>
                      <td>{t.subject ?? <span className="muted">none</span>}</td>
                      <td><Time iso={t.updated_at} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryState>
      </Section>
      <Section title="WhatsApp templates">
        <p className="lede">Approved by Meta outside herald and recorded by the operator; only approved ones can be sent.</p>
        <QueryState query={whatsapp} isEmpty={(d) => d.templates.length === 0} empty={<Empty title="No WhatsApp templates">Ask your operator to record the ones Meta approved.</Empty>}>
          {(data) => (
            <div className="table-wrap" tabIndex={0}>
              <table>
                <thead><tr><th scope="col">Name</th><th scope="col">templateId</th><th scope="col">Language</th><th scope="col">Body</th><th scope="col">Params</th><th scope="col">Status</th></tr></thead>
                <tbody>
                  {data.templates.map((t) => (
                    <tr key={t.templateId}>
                      <th scope="row">{t.name}</th>
                      <td><span className="id-cell"><code className="small">{t.templateId}</code><CopyButton text={t.templateId} label={`Copy the templateId of ${t.name}`} /></span></td>
                      <td>{t.language}</td>
                      <td className="wrap">{t.body}</td>
                      <td className="num">{t.paramCount}</td>
                      <td><StatusBadge status={t.status} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryState>
      </Section>
    </Page>
  );
}
