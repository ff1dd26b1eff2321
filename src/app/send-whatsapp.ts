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
import type { Tx } from '../store/database.ts';
import type { AppDeps } from './deps.ts';
import { approvedWhatsappTemplate } from './read-caches.ts';
import { eventOptions } from './event-options.ts';
import { parseSendAt } from '../domain/send-at.ts';
import { checkWhatsappFallback, reserveFallbackLegs, type ChainAnswer, type CheckedLeg } from './fallback-chain.ts';

export interface WhatsappAccepted {
  readonly result: string;
  readonly current_balance: number;
  readonly msgid: string;
  /** herald's own: the fallback chain the send named, every leg's msgid (docs/fallback.md). */
  readonly fallback?: ChainAnswer;
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
  const sendAt = parseSendAt(body, deps.clock());
  if (!sendAt.ok) return sendAt;

  const template = await approvedWhatsappTemplate(deps, account.id, templateId);
  if (template === undefined) return reject('templateNotFound');
  if (!paramsMatch(params, template.paramCount)) return reject('paramsMismatch');
  const fallback = checkWhatsappFallback(deps, account, body, destination);
  if (!fallback.ok) return fallback;

  const payload: WhatsappPayload = {
    kind: 'template', templateName: template.name, language: template.language, params, renderedBody: renderWhatsappBody(template.body, params),
  };
  return commitWhatsappSend(deps, account, destination, payload, { ...options.value, mode, ...sendAt.value }, fallback.value ?? []);
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
  fallback: readonly CheckedLeg[] = [],
): Promise<Result<WhatsappAccepted>> {
  const mode = options.mode ?? 'live';
  const price = account.whatsappPrice;
  const msgid = deps.newId();
  const sendId = deps.newId();
  const now = deps.clock();
  // The unit of work returns the answer: an Idempotency-Key is stored with it in the same transaction (app/idempotent-send.ts).
  // A person who answered a template with STOP gets no more templates: answered as any
  // send, stored as dropped (whatsapp.dropped), not billed. Session replies still go.
  // Destinations are stored as digits; people, in the ledger, as `+` and digits.
  const optedOut = payload.kind !== 'text' && await isOptedOut(deps.db, account.id, 'whatsapp', `+${destination.replace(/^\+/, '')}`, account.whatsappPhoneNumberId ?? '');
  // The chain's legs are reserved (and debited) with the first; a dropped first leg releases the next at once.
  const reserveChain = async (tx: Tx): Promise<{ fallback?: ChainAnswer }> => (fallback.length === 0 ? {} : {
    fallback: (await reserveFallbackLegs(tx, deps, { account, mode, legs: fallback, first: { msgid, sendId, channel: 'whatsapp' }, options, now })).chain,
  });
  const committed = await commitOrReject(deps.commit, async (tx): Promise<WhatsappAccepted> => {
    if (optedOut) {
      await insertSend(tx, { id: sendId, accountId: account.id, channel: 'whatsapp', payload, now, eventIds: deps.newId, options, requestId: deps.requestId }, [
        { id: msgid, recipient: destination, role: 'to', costMessages: 0, costBalance: 0, dropped: true, dropReason: 'opted_out' },
      ]);
      const chain = await reserveChain(tx);
      return { result: WHATSAPP_ACCEPTED_TEXT, current_balance: formatMoney((await findAccount(tx, account.id))?.balance ?? account.balance), msgid, ...chain };
    }
    // Debit last: the account row stays locked (PostgreSQL) only from here to the commit.
    await insertSend(tx, { id: sendId, accountId: account.id, channel: 'whatsapp', payload, now, eventIds: deps.newId, options, requestId: deps.requestId }, [
      { id: msgid, recipient: destination, role: 'to', costMessages: 0, costBalance: costOf(mode, price) },
    ]);
    const left = await chargeBalance(tx, { account, mode, amount: price, now, reason: 'whatsapp.send', sendId, ledgerId: deps.newId });
    if (left === null) throw new RejectionError({ code: 'insufficientBalance' });
    return { result: WHATSAPP_ACCEPTED_TEXT, current_balance: formatMoney(left), msgid, ...await reserveChain(tx) };
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
