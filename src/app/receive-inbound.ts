import { channelActive, type Channel } from '../domain/account.ts';
import type { InboundEventType } from '../domain/event-catalogue.ts';
import { keywordLocale, keywordOf } from '../domain/inbound-keywords.ts';
import { inboundData, type ArrivingMessage, type InboundMessage, type KeywordKind } from '../domain/inbound-message.ts';
import { findAccount, findAccountIdsByPhoneNumberId } from '../store/accounts.ts';
import { isOptedOut } from '../store/consent-ledger.ts';
import type { Tx } from '../store/database.ts';
import { accountsWithSmsSender, insertInbound, insertInboundAttachment, lastAccountToWrite } from '../store/inbound-messages.ts';
import { findKeywordSettings, keywordText } from '../store/keyword-settings.ts';
import { queueAccountEvent } from './account-event.ts';
import { recordConsentChange } from './consent-changes.ts';
import type { AppDeps } from './deps.ts';
import { sendKeywordReply } from './keyword-reply.ts';

// What a person sent, from any door (the SMPP session, the Cloud API webhook, the SMTP
// listener, the sandbox): routed to an account, stored, its keyword applied, and posted
// as `*.received`, all in one transaction, so a door acknowledges only what is kept.

export type InboundDeps = Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId' | 'wakeWebhooks' | 'wakeOutbox' | 'publicUrl' | 'metrics' | 'inboundLimit'>;

export interface InboundRecorded {
  readonly id: string;
  readonly channel: Channel;
  /** null: nobody could be found to route it to; kept for the operator. */
  readonly accountId: string | null;
  /** false: the peer's id was stored already (a resend); nothing was written. */
  readonly stored: boolean;
  readonly keyword: KeywordKind | null;
  /** The msgid of the SMS that answered a keyword, when one was sent. */
  readonly replyId: string | null;
  /** The message as stored, when it was (what its webhook posted). */
  readonly message?: InboundMessage;
}

const RECEIVED: Readonly<Record<Channel, InboundEventType>> = { sms: 'sms.received', whatsapp: 'whatsapp.received', email: 'email.received' };

/**
 * Whether the door may take one more message from `from` now (app/inbound-sender-limit.ts);
 * a message past the bound is counted, and the door asks its peer to send it again later.
 */
export async function admitInbound(deps: Pick<InboundDeps, 'inboundLimit' | 'metrics'>, channel: Channel, from: string): Promise<boolean> {
  if (deps.inboundLimit === undefined || (await deps.inboundLimit.admit(channel, from))) return true;
  deps.metrics.inboundObserved(channel, 'throttled');
  return false;
}

/** Stores and posts one arriving message in its own unit of work. */
export async function receiveInbound(deps: InboundDeps, arriving: ArrivingMessage): Promise<InboundRecorded> {
  const recorded = await deps.commit.run((tx) => recordInbound(tx, deps, arriving));
  afterInbound(deps, [recorded]);
  return recorded;
}

/**
 * After the commit of one or more recordInbound: each counted (an unrouted one is for the
 * operator's eyes), the dispatcher woken for the webhooks, the outbox for a keyword's reply.
 */
export function afterInbound(deps: Pick<InboundDeps, 'metrics' | 'wakeWebhooks' | 'wakeOutbox'>, recorded: readonly InboundRecorded[]): void {
  for (const one of recorded) deps.metrics.inboundObserved(one.channel, !one.stored ? 'duplicate' : one.accountId === null ? 'unrouted' : 'routed');
  if (recorded.some((one) => one.stored)) deps.wakeWebhooks?.();
  if (recorded.some((one) => one.replyId !== null)) deps.wakeOutbox();
}

/** receiveInbound inside the caller's transaction (a reassembled SMS deletes its parts in the same one). */
export async function recordInbound(tx: Tx, deps: Omit<InboundDeps, 'db' | 'commit' | 'metrics'>, arriving: ArrivingMessage): Promise<InboundRecorded> {
  const now = deps.clock();
  const id = deps.newId();
  const accountId = arriving.accountId ?? (await routeOf(tx, arriving));
  const settings = accountId === null || arriving.channel === 'email' ? undefined : await findKeywordSettings(tx, accountId);
  const keyword = settings === undefined ? null : keywordOf(arriving.text, settings.keywords);
  const message: InboundMessage = {
    id, accountId, channel: arriving.channel, from: arriving.from, to: arriving.to, text: arriving.text, content: arriving.content ?? null,
    keyword, replyTo: arriving.replyTo ?? null, receivedAt: Math.min(arriving.receivedAt, now), attachments: [],
    ...(arriving.test === true ? { test: true } : {}),
  };
  const stored = await insertInbound(tx, { ...message, providerRef: arriving.providerRef ?? null, now });
  if (!stored) return { id, channel: arriving.channel, accountId, stored: false, keyword: null, replyId: null };
  const attachments = [];
  for (const attachment of arriving.attachments ?? []) {
    attachments.push(await insertInboundAttachment(tx, {
      id: deps.newId(), inboundId: id, accountId, filename: attachment.filename, contentType: attachment.contentType,
      content: attachment.content, mediaRef: attachment.mediaRef, now,
    }));
  }
  const kept: InboundMessage = { ...message, attachments };
  if (accountId === null) return { id, channel: arriving.channel, accountId, stored: true, keyword: null, replyId: null, message: kept };

  await queueAccountEvent(tx, { id: deps.newId(), accountId, type: RECEIVED[arriving.channel], at: now, data: inboundData(kept, deps.publicUrl) });
  const replyId = keyword === null || settings === undefined ? null : await applyKeyword(tx, deps, { accountId, arriving, inboundId: id, keyword, settings, now });
  return { id, channel: arriving.channel, accountId, stored: true, keyword, replyId, message: kept };
}

/**
 * STOP opts the person out of the account's messages on the channel from the sender
 * written to, START back in, HELP asks for the help text. SMS keywords are answered
 * by SMS from that sender: the confirmation of STOP is the one message an opted-out
 * number still gets. WhatsApp keywords change the template opt-out and are not answered
 * (a session reply is the account's to write).
 */
async function applyKeyword(
  tx: Tx,
  deps: Omit<InboundDeps, 'db' | 'commit' | 'metrics'>,
  input: { accountId: string; arriving: ArrivingMessage; inboundId: string; keyword: KeywordKind; settings: NonNullable<Awaited<ReturnType<typeof findKeywordSettings>>>; now: number },
): Promise<string | null> {
  const { accountId, arriving, inboundId, keyword, settings, now } = input;
  const optedOut = await isOptedOut(tx, accountId, arriving.channel, arriving.from, arriving.to);
  if (keyword !== 'help') {
    const change = keyword === 'stop' ? 'opted_out' : 'opted_in';
    // A repeated STOP (or a START from someone never opted out) changes nothing: it is
    // neither written again nor answered, so two systems cannot answer each other for ever.
    if ((change === 'opted_out') === optedOut) return null;
    await recordConsentChange(tx, deps, {
      accountId, channel: arriving.channel, address: arriving.from, sender: arriving.to, change, source: 'keyword',
      keyword: arriving.text?.trim() ?? keyword, proof: { inbound_id: inboundId }, at: now,
    });
  }
  if (arriving.channel !== 'sms') return null;
  // HELP to an opted-out number is not answered: only the confirmation of STOP reaches it.
  if (keyword === 'help' && optedOut) return null;
  const account = await findAccount(tx, accountId);
  if (account === undefined || !channelActive(account, 'sms')) return null;
  return sendKeywordReply(tx, deps, {
    account, to: arriving.from, from: arriving.to, text: keywordText(settings, keyword, keywordLocale(arriving.text)), mode: arriving.test === true ? 'test' : 'live', inboundId,
  });
}

/**
 * The account a message belongs to: the one that owns the number written to; when
 * several share it, the one that last wrote to this person on the channel; when none
 * of those did, nobody (unrouted). Email is routed by its door (the receiving domain).
 */
async function routeOf(tx: Tx, arriving: ArrivingMessage): Promise<string | null> {
  let candidates: string[];
  if (arriving.channel === 'sms') candidates = await accountsWithSmsSender(tx, arriving.to);
  else if (arriving.channel === 'whatsapp') candidates = await findAccountIdsByPhoneNumberId(tx, arriving.to);
  else return null;
  if (candidates.length <= 1) return candidates[0] ?? null;
  // WhatsApp destinations are stored as the digits alone, SMS numbers with their `+`.
  const recipient = arriving.channel === 'whatsapp' ? arriving.from.replace(/^\+/, '') : arriving.from;
  return (await lastAccountToWrite(tx, candidates, arriving.channel, recipient)) ?? null;
}
