import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { accountQuery } from '../api/account.ts';
import { domainsQuery } from '../api/domains.ts';
import { usageQuery } from '../api/usage.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Page, Section } from '../components/page.tsx';
import { Empty, ErrorNotice, Loading, QueryState } from '../components/query-state.tsx';
import { formatCount, formatMoney, formatRate } from '../lib/format.ts';

// The chart library is loaded only when there is something to draw.
const UsageChart = lazy(() => import('./overview-chart.tsx'));

function Stat(props: { label: string; value: string; note?: string }) {
  return (
    <div className="stat">
      <dt>{props.label}</dt>
      <dd>{props.value}{props.note === undefined ? null : <span className="stat-note">{props.note}</span>}</dd>
    </div>
  );
}

export default function OverviewPage() {
  // Asked again on every visit: what was sent since the last one must show (the default 10 s
  // staleness would keep an empty overview after a first send).
  const account = useQuery({ ...accountQuery, staleTime: 0 });
  const usage = useQuery({ ...usageQuery(30), staleTime: 0 });

  return (
    <Page title="Overview" description="What the account has left and what it sent in the last 30 days.">
      <Section title="At a glance">
        {account.isPending || usage.isPending ? <Loading /> : account.isError ? <ErrorNotice error={account.error} onRetry={() => void account.refetch()} />
          : usage.isError ? <ErrorNotice error={usage.error} onRetry={() => void usage.refetch()} /> : (
            <dl className="stats">
              <Stat label="Messages left" value={formatCount(account.data.messages_left)} note="email and SMS" />
              <Stat label="Balance" value={formatMoney(account.data.balance)} note={`WhatsApp at ${formatMoney(account.data.whatsapp_price)} each`} />
              <Stat label="Sent today" value={formatCount(usage.data.today.email + usage.data.today.sms + usage.data.today.whatsapp)}
                note={`${formatCount(usage.data.today.email)} email · ${formatCount(usage.data.today.sms)} SMS · ${formatCount(usage.data.today.whatsapp)} WhatsApp`} />
              <Stat label="Bounce rate" value={formatRate(usage.data.bounce_rate)} note="email, 30 days" />
              <Stat label="Complaint rate" value={formatRate(usage.data.complaint_rate)} note="email, 30 days" />
            </dl>
          )}
      </Section>
      <Section title="Last 30 days">
        <QueryState
          query={usage}
          isEmpty={(data) => data.days.every((day) => day.email.accepted + day.sms.accepted + day.whatsapp.accepted === 0)}
          empty={<FirstSend />}
        >
          {(data) => <Suspense fallback={<Loading label="Drawing the chart…" />}><UsageChart days={data.days} /></Suspense>}
        </QueryState>
      </Section>
    </Page>
  );
}

/** The empty state: a send this account can make right now, from its own verified domain. */
function FirstSend() {
  const domains = useQuery(domainsQuery);
  const verified = domains.data?.domains.find((d) => d.verified)?.domain;
  const from = verified ?? 'example.com';
  const command = [
    `curl -s ${window.location.origin}/v1/email \\`,
    '  -H "Authorization: Bearer $HERALD_API_KEY" -H "Content-Type: application/json" \\',
    `  -d '{"to":[{"email":"you@example.org"}],"from":{"email":"hello@${from}","name":"Hello"},"replyTo":{"email":"hello@${from}","name":"Hello"},"subject":"First message","body":"<p>It works.</p>"}'`,
  ].join('\n');
  return (
    <Empty title="No messages in the last 30 days">
      <p>Send the first one: create a key on <Link to="/api-keys">API keys</Link>, put it in <code>HERALD_API_KEY</code>, and run:</p>
      <div className="code-block">
        <pre tabIndex={0} aria-label="curl command"><code>{command}</code></pre>
        <CopyButton text={command} label="Copy the curl command" />
      </div>
      {verified === undefined && domains.isSuccess
        ? <p className="hint">The account has no verified sender domain yet: <Link to="/domains">add one</Link> and use it as the sender.</p>
        : null}
    </Empty>
  );
}
