import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { MessageView } from '../api/types.ts';
import { Section } from '../components/page.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { channelName } from '../lib/format.ts';

type Chain = NonNullable<MessageView['fallback']>;

/** A message's fallback chain as one story: every leg in order, with its state and a link to its message (docs/fallback.md). */
export function FallbackChain(props: { chain: Chain; current: string }) {
  const { t } = useTranslation('messages');
  return (
    <Section title={t('fallback.title')}>
      <p className="muted">{t('fallback.hint')}</p>
      <ol className="fallback-legs">
        {props.chain.legs.map((leg) => (
          <li key={leg.leg} aria-current={leg.msgid === props.current ? 'true' : undefined}>
            <strong>{t('fallback.leg', { leg: leg.leg, channel: channelName(leg.channel) })}</strong>{' '}
            {leg.status === null ? <span className="badge neutral">{t(`fallback.state.${leg.state}`)}</span> : <StatusBadge status={leg.status} />}{' '}
            {leg.status === null || leg.msgid === props.current
              ? <code>{leg.msgid}</code>
              : <Link to={`/messages/${leg.msgid}`}><code>{leg.msgid}</code></Link>}
          </li>
        ))}
      </ol>
    </Section>
  );
}
