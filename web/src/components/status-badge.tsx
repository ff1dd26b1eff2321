const TONE: Record<string, string> = {
  delivered: 'good', succeeded: 'good', sent: 'good', active: 'good', APPROVED: 'good', verified: 'good', read: 'good', opened: 'good', clicked: 'good',
  queued: 'neutral', sending: 'neutral', pending: 'neutral', invited: 'neutral', PENDING: 'neutral',
  deferred: 'warn', dropped: 'warn', inactive: 'warn', 'not verified': 'warn', revoked: 'warn', expired: 'warn',
  failed: 'bad', bounced: 'bad', complained: 'bad', REJECTED: 'bad',
};

/** A status word with a colour that repeats its meaning (the word is always there). */
export function StatusBadge(props: { status: string }) {
  return <span className={`badge ${TONE[props.status] ?? 'neutral'}`}>{props.status}</span>;
}
