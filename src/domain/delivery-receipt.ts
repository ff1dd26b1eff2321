// The delivery receipt text of SMPP v3.4 Appendix B, which SMSCs send back in a
// deliver_sm (esm_class bit 0x04):
//   id:IIIIIIIIII sub:SSS dlvr:DDD submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DDDDDDD err:E text:…
// Only id, stat and err matter to herald. The format is "vendor specific" by the
// letter of the spec, so keys are matched case-insensitively and in any order.

/** What a final state means for the message; null: not final yet, nothing to record. */
export const RECEIPT_STAT_STATUS = {
  DELIVRD: 'delivered',
  EXPIRED: 'failed',
  DELETED: 'failed',
  UNDELIV: 'failed',
  REJECTD: 'failed',
  UNKNOWN: 'failed',
  ACCEPTD: null,
  ENROUTE: null,
} as const;

export type ReceiptStatus = 'delivered' | 'failed';

export interface DeliveryReceipt {
  /** The message_id the SMSC gave in its submit_sm_resp. */
  readonly providerRef: string;
  /** The stat field, upper-cased (DELIVRD, UNDELIV, …). */
  readonly stat: string;
  /** The err field (network-specific), null when absent. */
  readonly err: string | null;
  /** delivered or failed for a final stat; null for ACCEPTD, ENROUTE and stats this table does not know. */
  readonly status: ReceiptStatus | null;
}

const FIELD = (key: string): RegExp => new RegExp(`(?:^|\\s)${key}:(\\S+)`, 'i');
const ID = FIELD('id');
const STAT = FIELD('stat');
const ERR = FIELD('err');
// The original message's first characters follow `text:`; cut them off first so
// they cannot pose as a field.
const TEXT = /(?:^|\s)text:/i;

function statusOf(stat: string): ReceiptStatus | null {
  return Object.hasOwn(RECEIPT_STAT_STATUS, stat) ? RECEIPT_STAT_STATUS[stat as keyof typeof RECEIPT_STAT_STATUS] : null;
}

/** The receipt's id, stat and err; null when the text is not a receipt (no id or no stat). */
export function parseDeliveryReceipt(text: string): DeliveryReceipt | null {
  const textAt = text.search(TEXT);
  const fields = textAt === -1 ? text : text.slice(0, textAt);
  const id = ID.exec(fields)?.[1];
  const stat = STAT.exec(fields)?.[1]?.toUpperCase();
  if (id === undefined || stat === undefined) return null;
  return { providerRef: id, stat, err: ERR.exec(fields)?.[1] ?? null, status: statusOf(stat) };
}
