import { useTranslation } from 'react-i18next';

const TONE: Record<string, string> = {
  delivered: 'good', succeeded: 'good', sent: 'good', active: 'good', APPROVED: 'good', verified: 'good', read: 'good', opened: 'good', clicked: 'good',
  queued: 'neutral', sending: 'neutral', pending: 'neutral', invited: 'neutral', PENDING: 'neutral',
  scheduled: 'neutral',
  deferred: 'warn', dropped: 'warn', cancelled: 'warn', inactive: 'warn', 'not verified': 'warn', revoked: 'warn', expired: 'warn',
  failed: 'bad', bounced: 'bad', complained: 'bad', REJECTED: 'bad',
};

/**
 * A status word with a colour that repeats its meaning (the word is always there), in the
 * page's language; the wire value herald answered stays in data-status (and the title
 * where the words differ), so the API's word can always be found.
 */
export function StatusBadge(props: { status: string; kind?: 'message' }) {
  const { t } = useTranslation('common');
  // `kind`: what the status is of, for a word whose form depends on it (Spanish: a message is programado, a campaign programada).
  const shown = t(`status.${props.status}`, { defaultValue: props.status, ...(props.kind === undefined ? {} : { context: props.kind }) });
  return (
    <span className={`badge ${TONE[props.status] ?? 'neutral'}`} data-status={props.status} title={shown === props.status ? undefined : props.status}>
      {shown}
    </span>
  );
}
