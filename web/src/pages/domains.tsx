import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { addDomain, domainKeys, domainsQuery } from '../api/domains.ts';
import { allows, useSession } from '../api/session.ts';
import { DataTable } from '../components/data-table.tsx';
import { TextField } from '../components/field.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';

/** A host name as the add form's placeholder (data, the same in every language). */
const EXAMPLE_DOMAIN = 'mail.example.com';

export default function DomainsPage() {
  const { t } = useTranslation('domains');
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const domains = useQuery(domainsQuery);
  return (
    <Page title={t('list.title')} description={t('list.description')}>
      {canWrite ? <AddDomain /> : null}
      <Section title={t('list.senderDomains')}>
        <QueryState query={domains} isEmpty={(d) => d.domains.length === 0} empty={<Empty title={t('list.none')}>{canWrite ? t('list.noneHint') : null}</Empty>}>
          {(data) => (
            <DataTable rows={data.domains} rowKey={(d) => d.domain} columns={[
              { header: t('list.domain'), cell: (d) => <Link to={`/domains/${encodeURIComponent(d.domain)}`}>{d.domain}</Link> },
              { header: t('list.state'), cell: (d) => <StatusBadge status={d.verified ? 'verified' : 'not verified'} /> },
              { header: t('list.verified'), cell: (d) => <Time iso={d.verifiedAt} fallback={t('list.notYet')} /> },
            ]} />
          )}
        </QueryState>
      </Section>
    </Page>
  );
}

function AddDomain() {
  const { t } = useTranslation('domains');
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
    <Section title={t('add.title')}>
      <form onSubmit={submit} noValidate className="inline-form">
        <TextField label={t('list.domain')} value={domain} onChange={(e) => setDomain(e.target.value)} placeholder={EXAMPLE_DOMAIN} spellCheck={false} />
        <button type="submit" className="button" disabled={add.isPending || domain.trim() === ''}>{t('add.submit')}</button>
      </form>
      {add.isError ? <ErrorNotice error={add.error} /> : null}
    </Section>
  );
}
