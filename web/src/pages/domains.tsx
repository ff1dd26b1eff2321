import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { addDomain, domainKeys, domainsQuery } from '../api/domains.ts';
import { allows, useSession } from '../api/session.ts';
import { DataTable } from '../components/data-table.tsx';
import { TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';

export default function DomainsPage() {
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const domains = useQuery(domainsQuery);
  return (
    <Page title="Domains" description="Email is sent only from verified domains: publish the DNS records, then verify.">
      {canWrite ? <AddDomain /> : null}
      <Section title="Sender domains">
        <QueryState query={domains} isEmpty={(d) => d.domains.length === 0} empty={<Empty title="No sender domains yet">{canWrite ? 'Add the domain your email comes from.' : null}</Empty>}>
          {(data) => (
            <DataTable rows={data.domains} rowKey={(d) => d.domain} columns={[
              { header: 'Domain', cell: (d) => <Link to={`/domains/${encodeURIComponent(d.domain)}`}>{d.domain}</Link> },
              { header: 'State', cell: (d) => <StatusBadge status={d.verified ? 'verified' : 'not verified'} /> },
              { header: 'Verified', cell: (d) => <Time iso={d.verifiedAt} fallback="not yet" /> },
            ]} />
          )}
        </QueryState>
      </Section>
    </Page>
  );
}

function AddDomain() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [domain, setDomain] = useState('');
  const add = useMutation({
    mutationFn: () => addDomain(domain.trim()),
    onSuccess: (added) => {
      void client.invalidateQueries({ queryKey: domainKeys.all });
      navigate(`/domains/${encodeURIComponent(added.domain)}`);
    },
  });
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    if (domain.trim() !== '') add.mutate();
  };
  return (
    <Section title="Add a domain">
      <form onSubmit={submit} noValidate className="inline-form">
        <TextField label="Domain" value={domain} onChange={(e) => setDomain(e.target.value)} placeholder="mail.example.com" autoCapitalize="off" spellCheck={false} />
        <button type="submit" className="button" disabled={add.isPending || domain.trim() === ''}>Add domain</button>
      </form>
      {add.isError ? <ErrorNotice error={add.error} /> : null}
    </Section>
  );
}
