import { channelActive, type Account } from '../domain/account.ts';
import { formatMoney } from '../domain/money.ts';
import type { WhatsappPayload } from '../domain/outbound.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { paramsMatch, parseWhatsappRequest, renderWhatsappBody } from '../domain/whatsapp-request.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { chargeBalance, costOf } from './send-charge.ts';
import { insertSend, type SendOptions } from '../store/messages.ts';
import { isOptedOut } from '../store/consent-ledger.ts';
import { findAccount } from '../store/accounts.ts';
import type { AppDeps } from './deps.ts';
import { approvedWhatsappTemplate } from './read-caches.ts';
import { eventOptions } from './event-options.ts';

export interface WhatsappAccepted {
  readonly result: string;
  readonly current_balance: number;
  readonly msgid: string;
}

export const WHATSAPP_ACCEPTED_TEXT = 'WhatsApp message queued for delivery';

/** POST /v1/whatsapp/sendTemplateMessage: costs the account's whatsappPrice from its balance. */
export async function sendWhatsapp(deps: AppDeps, account: Account, body: unknown, mode: KeyMode = 'live'): Promise<Result<WhatsappAccepted>> {
  if (!channelActive(account, 'whatsapp')) return reject('serviceInactive');
  const parsed = parseWhatsappRequest(body);
  if (!parsed.ok) return parsed;
  const { destination, templateId, params } = parsed.value;
  const options = eventOptions(body, deps.limits);
  if (!options.ok) return options;

  const template = await approvedWhatsappTemplate(deps, account.id, templateId);
  if (template === undefined) return reject('templateNotFound');
  if (!paramsMatch(params, template.paramCount)) return reject('paramsMismatch');

  const payload: WhatsappPayload = {
    kind: 'template', templateName: template.name, language: template.language, params, renderedBody: renderWhatsappBody(template.body, params),
  };
  return commitWhatsappSend(deps, account, destination, payload, { ...options.value, mode });
}

/**
 * The accepting half of both WhatsApp operations, template and session: one
 * transaction that takes the account's whatsappPrice from its balance (or rejects
 * `insufficientBalance`), writes the ledger row, the send, its message and outbox row.
 */
export async function commitWhatsappSend(
  deps: AppDeps,
  account: Account,
  destination: string,
  payload: WhatsappPayload,
  options: SendOptions,
): Promise<Result<WhatsappAccepted>> {
  const mode = options.mode ?? 'live';
  const price = account.whatsappPrice;
  const msgid = deps.newId();
  const sendId = deps.newId();
  const now = deps.clock();
  // The unit of work returns the answer: an Idempotency-Key is stored with it in the same transaction (app/idempotent-send.ts).
  // A person who answered a template with STOP gets no more templates: answered as any
  // send, stored as dropped (whatsapp.dropped), not billed. Session replies still go.
  const optedOut = payload.kind !== 'text' && await isOptedOut(deps.db, account.id, 'whatsapp', destination, account.whatsappPhoneNumberId ?? '');
  const committed = await commitOrReject(deps.commit, async (tx): Promise<WhatsappAccepted> => {
    if (optedOut) {
      await insertSend(tx, { id: sendId, accountId: account.id, channel: 'whatsapp', payload, now, eventIds: deps.newId, options, requestId: deps.requestId }, [
        { id: msgid, recipient: destination, role: 'to', costMessages: 0, costBalance: 0, dropped: true, dropReason: 'opted_out' },
      ]);
      return { result: WHATSAPP_ACCEPTED_TEXT, current_balance: formatMoney((await findAccount(tx, account.id))?.balance ?? account.balance), msgid };
    }
    // Debit last: the account row stays locked (PostgreSQL) only from here to the commit.
    await insertSend(tx, { id: sendId, accountId: account.id, channel: 'whatsapp', payload, now, eventIds: deps.newId, options, requestId: deps.requestId }, [
      { id: msgid, recipient: destination, role: 'to', costMessages: 0, costBalance: costOf(mode, price) },
    ]);
    const left = await chargeBalance(tx, { account, mode, amount: price, now, reason: 'whatsapp.send', sendId, ledgerId: deps.newId });
    if (left === null) throw new RejectionError({ code: 'insufficientBalance' });
    return { result: WHATSAPP_ACCEPTED_TEXT, current_balance: formatMoney(left), msgid };
  });
  if (!committed.ok) return committed;
  if (optedOut) {
    deps.wakeWebhooks?.();
    return ok(committed.value);
  }
  deps.metrics.messagesAccepted('whatsapp', 1);
  deps.wakeOutbox();
  return ok(committed.value);
}
