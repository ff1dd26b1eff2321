import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { domainKeys, domainQuery, verifyDomain } from '../api/domains.ts';
import { allows, useSession } from '../api/session.ts';
import type { DomainCheck } from '../api/types.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';

const PURPOSE: Record<string, string> = {
  verification: 'proves the domain is yours (required)',
  dkim: 'the DKIM key herald signs with (required)',
  spf: 'lets herald\'s hosts send for the domain (advised)',
  bounces: 'the bounce domain\'s MX, published once by the operator',
};

export default function DomainPage() {
  const name = useParams().domain ?? '';
  const client = useQueryClient();
  const session = useSession();
  const canWrite = allows(session.data?.user.role ?? 'viewer', 'write');
  const domain = useQuery(domainQuery(name));
  const verify = useMutation({
    mutationFn: () => verifyDomain(name),
    onSuccess: (result) => {
      client.setQueryData(domainKeys.detail(name), result);
      void client.invalidateQueries({ queryKey: domainKeys.all });
    },
  });
  return (
    <Page title={name} description={<Link to="/domains">← All domains</Link>}>
      <QueryState query={domain}>
        {(data) => (
          <>
            <Section title="State" actions={canWrite ? <button type="button" className="button" disabled={verify.isPending} onClick={() => verify.mutate()}>{verify.isPending ? 'Looking up…' : 'Verify now'}</button> : undefined}>
              <p><StatusBadge status={data.verified ? 'verified' : 'not verified'} /> {data.verified ? <>since <Time iso={data.verifiedAt} /></> : 'Email from this domain is refused until it is verified.'}</p>
              {verify.isError ? <ErrorNotice error={verify.error} /> : null}
              {verify.data === undefined ? null : <CheckResults checks={verify.data.checks} verified={verify.data.verified} />}
            </Section>
            <Section title="DNS records to publish">
              <ul className="records">
                {data.records.map((record) => (
                  <li key={`${record.purpose}-${record.name}`} className="record">
                    <div className="record-head"><span className="badge neutral">{record.type}</span> <strong>{record.purpose}</strong> <span className="muted">— {PURPOSE[record.purpose] ?? ''}</span></div>
                    <div className="record-field"><span className="label-line">Name</span><code>{record.name}</code><CopyButton text={record.name} label={`Copy the ${record.purpose} record's name`} /></div>
                    <div className="record-field"><span className="label-line">Value</span><code className="break">{record.value}</code><CopyButton text={record.value} label={`Copy the ${record.purpose} record's value`} /></div>
                  </li>
                ))}
              </ul>
            </Section>
          </>
        )}
      </QueryState>
    </Page>
  );
}

function CheckResults(props: { checks: readonly DomainCheck[]; verified: boolean }) {
  return (
    <div role="status" className="checks">
      <h3>{props.verified ? 'Verified: every required record was found.' : 'Not verified yet.'}</h3>
      <ul className="plain-list">
        {props.checks.map((check) => (
          <li key={check.record} className={check.ok ? 'check ok' : 'check bad'}>
            <span aria-hidden="true">{check.ok ? '✓' : '✗'}</span> <code>{check.record}</code>: {check.ok ? 'found and correct'
              : check.error !== undefined ? `look-up failed (${check.error}); try again later`
                : check.found ? 'found, but it does not carry the expected value' : 'not found'}
          </li>
        ))}
      </ul>
    </div>
  );
}
