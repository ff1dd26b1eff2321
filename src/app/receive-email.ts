import { channelActive } from '../domain/account.ts';
import { msgidFromMessageId } from '../domain/dsn.ts';
import type { ArrivingMessage } from '../domain/inbound-message.ts';
import { RAW_MESSAGE_FILENAME, RAW_MESSAGE_TYPE, type ReadEmail } from '../domain/inbound-email.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { ruleFor, splitAddress, type ReceivingRule } from '../domain/receiving-domain.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { messageCreatedAt } from '../store/messages.ts';
import { findReceivingDomainByName, type ReceivingDomain } from '../store/receiving-domains.ts';
import type { AppDeps } from './deps.ts';
import { cachedAccount } from './read-caches.ts';
import { receiveInbound } from './receive-inbound.ts';
import { storeEmailSend, UNTRACKED } from './send-email.ts';

// Mail to a receiving domain (docs/inbound-email.md): which recipients the listener
// takes (RCPT TO), and what each rule does with a message once read: `webhook` hands
// it to app/receive-inbound.ts (stored, posted as email.received), `forward` sends it
// on through herald's own email path, billed to the domain's account.

/** What RCPT TO answers for an address: taken, refused by a rule (550 5.7.1), or not ours (550 5.1.1). */
export type RecipientVerdict = 'accept' | 'refuse' | 'unknown';

interface Route {
  readonly domain: ReceivingDomain;
  readonly rule: ReceivingRule;
}

/** The verified receiving domain of the address and its rule for it; undefined when no such domain. */
async function routeOf(deps: AppDeps, address: string): Promise<Route | undefined> {
  const parts = splitAddress(address);
  if (parts === null) return undefined;
  const domain = await findReceivingDomainByName(deps.db, parts.domain);
  if (domain === undefined || domain.verifiedAt === null) return undefined;
  return { domain, rule: ruleFor(domain.rules, parts.local) };
}

export async function recipientVerdict(deps: AppDeps, address: string): Promise<RecipientVerdict> {
  const route = await routeOf(deps, address);
  if (route === undefined) return 'unknown';
  return route.rule.action === 'refuse' ? 'refuse' : 'accept';
}

export interface ReceivedEnvelope {
  /** MAIL FROM, '' for the null sender. */
  readonly mailFrom: string;
  readonly recipients: readonly string[];
}

/** The Message-ID host of herald's own messages (channels/email/compose.ts writes `<msgid@host>`). */
const messageIdHost = (deps: AppDeps): string => new URL(deps.publicUrl).hostname.toLowerCase();

/** The msgid of a Message-ID herald wrote, or null. */
function heraldMsgid(deps: AppDeps, messageId: string): string | null {
  const host = /@([^<>@\s]+)>?\s*$/.exec(messageId)?.[1]?.toLowerCase();
  return host === messageIdHost(deps) ? msgidFromMessageId(messageId) : null;
}

/** The first message the email answers that herald sent for the account. */
async function answeredMsgid(deps: AppDeps, accountId: string, email: ReadEmail): Promise<string | undefined> {
  for (const id of email.answers) {
    const msgid = heraldMsgid(deps, id);
    if (msgid !== null && (await messageCreatedAt(deps.db, accountId, msgid)) !== undefined) return msgid;
  }
  return undefined;
}

/**
 * One message for every recipient the listener took, each by its domain's rule as it
 * stands now (a rule changed since RCPT TO to `refuse`, or a domain removed, drops that
 * copy). A rejection (a forward the account cannot pay for) is the listener's to answer;
 * a throw answers 451 and the sender tries again (a stored copy is not stored twice).
 */
export async function receiveEmail(deps: AppDeps, envelope: ReceivedEnvelope, raw: Buffer, email: ReadEmail): Promise<Result<void>> {
  for (const recipient of envelope.recipients) {
    const route = await routeOf(deps, recipient);
    if (route === undefined || route.rule.action === 'refuse') continue;
    if (route.rule.action === 'forward' && route.rule.forwardTo !== undefined) {
      const forwarded = await forwardEmail(deps, route.domain, route.rule.forwardTo, recipient, envelope, raw, email);
      if (!forwarded.ok) return forwarded;
      continue;
    }
    await receiveInbound(deps, await arrivingOf(deps, route.domain, recipient, envelope, raw, email));
  }
  return ok(undefined);
}

async function arrivingOf(deps: AppDeps, domain: ReceivingDomain, recipient: string, envelope: ReceivedEnvelope, raw: Buffer, email: ReadEmail): Promise<ArrivingMessage> {
  const to = recipient.toLowerCase();
  const replyTo = await answeredMsgid(deps, domain.accountId, email);
  return {
    channel: 'email',
    accountId: domain.accountId,
    from: email.from ?? envelope.mailFrom.toLowerCase(),
    to,
    text: email.text,
    receivedAt: deps.clock(),
    // One message may go to several addresses (and accounts): each copy is its own, and a resend of it is stored once.
    ...(email.messageId === null ? {} : { providerRef: `${to} ${email.messageId}` }),
    ...(replyTo === undefined ? {} : { replyTo }),
    content: {
      subject: email.subject,
      html: email.html,
      cc: email.cc,
      headers: email.headers.map((h) => ({ name: h.name, value: h.value })),
      authentication: { ...email.authentication },
      message_id: email.messageId,
    },
    // The raw message first, so GET /v1/inbound/:id/raw finds it by name and type.
    attachments: [
      { filename: RAW_MESSAGE_FILENAME, contentType: RAW_MESSAGE_TYPE, content: raw },
      ...email.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    ],
  };
}

/** Subjects are cut where a header line must end (RFC 5322 §2.1.1). */
const MAX_SUBJECT = 900;

/**
 * The rule's `forward`: a new email from the receiving address to `forwardTo`, the
 * original attached whole as message.eml (its own DKIM signature intact for the reader),
 * Reply-To the original sender. One billed email of the account; suppressions apply.
 * Mail herald itself wrote (its own Message-ID) is not forwarded again: a loop ends here.
 */
async function forwardEmail(
  deps: AppDeps, domain: ReceivingDomain, forwardTo: string, recipient: string, envelope: ReceivedEnvelope, raw: Buffer, email: ReadEmail,
): Promise<Result<void>> {
  if (email.messageId !== null && heraldMsgid(deps, email.messageId) !== null) return ok(undefined);
  const account = await cachedAccount(deps, domain.accountId);
  if (account === undefined || !channelActive(account, 'email')) return reject('serviceInactive');
  const sender = email.from ?? (envelope.mailFrom === '' ? recipient : envelope.mailFrom);
  const payload: EmailPayload = {
    from: { email: recipient.toLowerCase(), name: '' },
    replyTo: { email: sender, name: '' },
    subject: `Fwd: ${email.subject ?? ''}`.slice(0, MAX_SUBJECT),
    html: null,
    text: `From ${sender} to ${recipient.toLowerCase()}, forwarded by herald. The message as it arrived is attached.\r\n\r\n${email.text ?? ''}`,
    to: [forwardTo], cc: [],
    attachments: [{ filename: RAW_MESSAGE_FILENAME, source: { kind: 'data', contentType: RAW_MESSAGE_TYPE, base64: raw.toString('base64'), size: raw.length } }],
    tracking: UNTRACKED, certified: false,
  };
  const sent = await storeEmailSend(deps, account, 'live', {
    payload,
    options: { family: 'transactional', metadata: { herald: 'forward', received_by: recipient.toLowerCase() }, certified: false, tracking: UNTRACKED, campaignName: null, mode: 'live' },
    listed: [{ email: forwardTo, role: 'to' }],
  });
  return sent.ok ? ok(undefined) : sent;
}
