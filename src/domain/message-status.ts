// A message's life, as a closed set of states and the transitions allowed between
// them. `sent` means a transport took the message (for `capture`, stored it);
// `delivered` needs the peer's confirmation (SMPP receipts, MX acceptance).
export const MESSAGE_STATUSES = ['queued', 'deferred', 'sent', 'delivered', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

const TRANSITIONS: Readonly<Record<MessageStatus, readonly MessageStatus[]>> = {
  queued: ['sent', 'deferred', 'failed', 'delivered'],
  deferred: ['sent', 'deferred', 'failed', 'delivered'],
  sent: ['delivered', 'failed'],
  delivered: [],
  failed: [],
};

export function canTransition(from: MessageStatus, to: MessageStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isMessageStatus(value: string): value is MessageStatus {
  return (MESSAGE_STATUSES as readonly string[]).includes(value);
}
