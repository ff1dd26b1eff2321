// A message's life, as a closed set of states and the transitions allowed between
// them:
//
//   scheduled → sending | cancelled      (a send with send_at: held in the outbox until then)
//   queued → sending → sent → delivered
//              │  ╰──→ deferred → sending (again)
//              ╰────→ failed | bounced | delivered (a peer that confirms at once: MX acceptance)
//
// `sent`: a transport took the message (a relay, an SMSC, the Cloud API, or capture
// stored it). `delivered`: the recipient's side confirmed (MX acceptance, an SMPP
// receipt, a WhatsApp status). `bounced`: the recipient's side refused it for good.
// `dropped`: born final, never queued: the recipient is on the account's suppression list.
// `cancelled`: a scheduled message cancelled before its time (refunded, never sent).
export const MESSAGE_STATUSES = ['queued', 'sending', 'deferred', 'sent', 'delivered', 'failed', 'bounced', 'dropped', 'scheduled', 'cancelled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

const TRANSITIONS: Readonly<Record<MessageStatus, readonly MessageStatus[]>> = {
  scheduled: ['sending', 'cancelled'],
  cancelled: [],
  queued: ['sending', 'failed'],
  sending: ['sent', 'delivered', 'deferred', 'failed', 'bounced'],
  deferred: ['sending', 'failed'],
  sent: ['delivered', 'failed', 'bounced'],
  // A receipt may be followed by an asynchronous bounce (a DSN after MX acceptance).
  delivered: ['bounced'],
  failed: [],
  bounced: [],
  dropped: [],
};

export function canTransition(from: MessageStatus, to: MessageStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

const PREDECESSORS = new Map<MessageStatus, readonly MessageStatus[]>(
  MESSAGE_STATUSES.map((to) => [to, MESSAGE_STATUSES.filter((from) => TRANSITIONS[from].includes(to))]),
);

/** The states a message may be in for a move to `to` to apply. */
export function predecessorsOf(to: MessageStatus): readonly MessageStatus[] {
  return PREDECESSORS.get(to) ?? [];
}

export function isMessageStatus(value: string): value is MessageStatus {
  return (MESSAGE_STATUSES as readonly string[]).includes(value);
}
