import type { Account } from '../domain/account.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { SmsPayload } from '../domain/outbound.ts';
import { segmentCount, splitGsmText } from '../domain/sms-request.ts';
import { toGsm7 } from '../domain/gsm7.ts';
import type { Tx } from '../store/database.ts';
import { insertSend } from '../store/messages.ts';
import type { AppDeps } from './deps.ts';
import { chargeMessages, costOf } from './send-charge.ts';

/**
 * The SMS that answers a keyword (the confirmation of STOP or START, the help text):
 * from the number the person wrote to, billed as any SMS, in the transaction that
 * stored the keyword. False when the account has no messages left for it: the
 * keyword still takes effect, and the caller counts the reply as not sent.
 */
export async function sendKeywordReply(
  tx: Tx,
  deps: Pick<AppDeps, 'newId' | 'clock'>,
  reply: { readonly account: Account; readonly to: string; readonly from: string; readonly text: string; readonly mode: KeyMode; readonly inboundId: string },
): Promise<string | null> {
  const text = toGsm7(reply.text);
  const segments = segmentCount(text);
  const payload: SmsPayload = { text, segments: splitGsmText(text), from: reply.from };
  const sendId = deps.newId();
  const messageId = deps.newId();
  const now = deps.clock();
  const left = await chargeMessages(tx, { account: reply.account, mode: reply.mode, amount: segments, now, reason: 'sms.send', sendId, ledgerId: deps.newId });
  if (left === null) return null;
  await insertSend(tx, {
    id: sendId, accountId: reply.account.id, channel: 'sms', payload, now, eventIds: deps.newId,
    options: { family: 'transactional', metadata: { keyword_reply_to: reply.inboundId }, certified: false, tracking: { opens: false, clicks: false }, mode: reply.mode },
  }, [{ id: messageId, recipient: reply.to, role: 'to', costMessages: costOf(reply.mode, segments), costBalance: 0 }]);
  return messageId;
}
