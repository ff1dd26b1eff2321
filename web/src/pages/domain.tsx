import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { deleteDomain, domainKeys, domainQuery, verifyDomain } from '../api/domains.ts';
import { allows, useSession } from '../api/session.ts';
import type { SenderDomainVerification } from '../api/types.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { ConfirmDialog } from '../components/dialog.tsx';
import { Page, Section } from '../components/page.tsx';
import { ErrorNotice, QueryState } from '../components/query-state.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { Time } from '../components/time.tsx';

type Check = SenderDomainVerification['checks'][number];

export default function DomainPage() {
  const { t } = useTranslation('domains');
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
    <Page title={name} description={<Link to="/domains">← {t('detail.back')}</Link>}>
      <QueryState query={domain}>
        {(data) => (
          <>
            <Section title={t('detail.state')} actions={canWrite ? <button type="button" className="button" disabled={verify.isPending} onClick={() => verify.mutate()}>{verify.isPending ? t('detail.verifying') : t('detail.verify')}</button> : undefined}>
              <p><StatusBadge status={data.verified ? 'verified' : 'not verified'} /> {data.verified ? <>{t('detail.since')} <Time iso={data.verifiedAt} /></> : t('detail.refused')}</p>
              {verify.isError ? <ErrorNotice error={verify.error} /> : null}
              {verify.data === undefined ? null : <CheckResults checks={verify.data.checks} verified={verify.data.verified} />}
            </Section>
            <Section title={t('detail.records')}>
              {data.notes.map((note) => <p key={note.code} className="notice">{t(`note.${note.code}`, { address: note.address, bounceDomain: data.records.find((r) => r.purpose === 'bounces')?.name ?? '' })}</p>)}
              <ul className="records">
                {data.records.map((record) => (
                  <li key={`${record.purpose}-${record.type}-${record.name}`} className="record">
                    <div className="record-head"><span className="badge neutral">{record.type}</span> <strong>{record.purpose}</strong> <span className="muted">— {t(`purpose.${record.purpose}`)}</span></div>
                    <div className="record-field"><span className="label-line">{t('detail.name')}</span><code>{record.name}</code><CopyButton text={record.name} label={t('detail.copyName', { purpose: record.purpose, type: record.type })} /></div>
                    <div className="record-field"><span className="label-line">{t('detail.value')}</span><code className="break">{record.value}</code><CopyButton text={record.value} label={t('detail.copyValue', { purpose: record.purpose, type: record.type })} /></div>
                  </li>
                ))}
              </ul>
            </Section>
            {canWrite ? <DeleteDomain name={data.domain} /> : null}
          </>
        )}
      </QueryState>
    </Page>
  );
}

function CheckResults(props: { checks: readonly Check[]; verified: boolean }) {
  const { t } = useTranslation('domains');
  const outcome = (check: Check): string => {
    if (check.ok) return t('check.ok');
    if (check.error !== undefined) return t('check.failed', { error: check.error });
    return check.found ? t('check.wrong') : t('check.missing');
  };
  return (
    <div role="status" className="checks">
      <h3>{props.verified ? t('check.verified') : t('check.notVerified')}</h3>
      <ul className="plain-list">
        {props.checks.map((check) => {
          const advisory = check.purpose === 'spf' || check.purpose === 'dmarc';
          return (
            <li key={`${check.purpose}-${check.record}`} className={check.ok ? 'check ok' : advisory ? 'check advisory' : 'check bad'}>
              <span aria-hidden="true">{check.ok ? '✓' : advisory ? '!' : '✗'}</span> <strong>{check.purpose}</strong> <code>{check.record}</code>: {outcome(check)}
              {advisory ? <span className="muted"> ({t('check.advisory')})</span> : null}
              {check.value === undefined ? null : <div className="small">{t('check.found')} <code className="break">{check.value}</code></div>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function DeleteDomain(props: { name: string }) {
  const { t } = useTranslation('domains');
  const client = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteDomain(props.name),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: domainKeys.all });
      navigate('/domains', { replace: true });
    },
  });
  return (
    <Section title={t('delete.title')}>
      <p>{t('delete.explain')}</p>
      <button type="button" className="button danger" onClick={() => setConfirming(true)}>{t('delete.open')}</button>
      <ConfirmDialog open={confirming} onClose={() => { setConfirming(false); remove.reset(); }} title={t('delete.confirmTitle')} confirmLabel={t('delete.confirm')} danger
        busy={remove.isPending} onConfirm={() => remove.mutate()}>
        <p>{t('delete.confirmBody', { domain: props.name })}</p>
        {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      </ConfirmDialog>
    </Section>
  );
}
