import { channelActive, type Account } from '../domain/account.ts';
import { domainOf } from '../domain/email-address.ts';
import { looksLikeHtml, parseEmailRequest, type EmailRequest } from '../domain/email-request.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { inPart } from '../domain/email-template.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { findEmailTemplate, type EmailTemplate } from '../store/email-templates.ts';
import { isStoreUnavailable } from '../store/store-unavailable.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { chargeMessages, costOf } from './send-charge.ts';
import { insertSend, type NewMessage, type SendOptions, type SendWithMessages } from '../store/messages.ts';
import { suppressedAmong } from '../store/suppressions.ts';
import { effectiveTracking } from '../domain/send-options.ts';
import { parseSendAt } from '../domain/send-at.ts';
import type { AppDeps } from './deps.ts';
import type { Tx } from '../store/database.ts';
import { verifiedSenderDomain } from './read-caches.ts';
import { checkEmailFallback, reserveFallbackLegs, type ChainAnswer, type CheckedLeg } from './fallback-chain.ts';

export interface EmailAccepted {
  readonly message: string;
  readonly to: readonly { readonly email: string; readonly msgid: string }[];
  /** herald's own: the fallback chain the send named, every leg's msgid (docs/fallback.md). */
  readonly fallback?: ChainAnswer;
}

export const EMAIL_ACCEPTED_TEXT = 'Email queued for delivery';

export const UNTRACKED = { opens: false, clicks: false } as const;

/**
 * POST /v1/email. Checks, in order: the account may send email; the request is
 * well-formed; the sender domain is verified; the template exists and renders.
 * Then one transaction debits one message per recipient and stores the messages
 * with their outbox rows; a debit that would overdraw refuses the whole send.
 */
export async function sendEmail(deps: AppDeps, account: Account, body: unknown, mode: KeyMode = 'live'): Promise<Result<EmailAccepted>> {
  const checked = await checkEmailSend(deps, account, body, mode);
  if (!checked.ok) return checked;
  const fallback = checkEmailFallback(deps, account, body, checked.value.listed.length);
  if (!fallback.ok) return fallback;
  return storeEmailSend(deps, account, mode, checked.value, fallback.value ?? []);
}

/** The checks of POST /v1/email in the interface's order, reads only: the send as it would be stored (a batch item's too). */
export async function checkEmailSend(deps: AppDeps, account: Account, body: unknown, mode: KeyMode): Promise<Result<EmailSend>> {
  if (!channelActive(account, 'email')) return reject('serviceInactive');
  const parsed = parseEmailRequest(body, deps.limits);
  if (!parsed.ok) return parsed;
  const request = parsed.value;
  const sendAt = parseSendAt(body, deps.clock());
  if (!sendAt.ok) return sendAt;

  const domain = await verifiedSenderDomain(deps, account.id, domainOf(request.from.email));
  if (domain === undefined) return reject('domainNotPermitted');

  const content = await renderContent(deps, account, request);
  if (!content.ok) return content;

  const listed = [
    ...request.to.map((email) => ({ email, role: 'to' as const })),
    ...request.cc.map((email) => ({ email, role: 'cc' as const })),
    ...request.bcc.map((email) => ({ email, role: 'bcc' as const })),
  ];
  // A test key's email is never tracked: no pixel, no rewritten link (docs/tracking.md), so
  // no test key can make herald's host redirect to a URL of its choosing.
  const tracking = mode === 'test' ? UNTRACKED : effectiveTracking(request.options, account.tracking, content.value.html !== null);
  const payload: EmailPayload = {
    from: request.from, replyTo: request.replyTo, subject: content.value.subject, html: content.value.html, text: content.value.text,
    to: request.to, cc: request.cc, attachments: request.attachments, tracking, certified: request.options.certified,
  };
  const options: SendOptions = {
    family: request.options.campaign === null ? 'transactional' : 'campaign',
    metadata: request.options.metadata, certified: request.options.certified, tracking, campaignName: request.options.campaign, mode, ...sendAt.value,
  };
  return ok({ payload, options, listed });
}

/** One email send as both doors make it (POST /v1/email, SMTP submission): the shared content and who it goes to. */
export interface EmailSend {
  readonly payload: EmailPayload;
  readonly options: SendOptions;
  readonly listed: readonly { readonly email: string; readonly role: 'to' | 'cc' | 'bcc' }[];
}

/** A checked send with its ids and messages, ready for a unit of work: what it bills (suppressed recipients are free). */
export interface PreparedEmailSend {
  readonly sendId: string;
  readonly send: EmailSend;
  readonly recipients: readonly NewMessage[];
  readonly billed: number;
}

/** Reads which recipients are suppressed and gives every recipient its msgid; writes nothing. */
export async function prepareEmailSend(deps: AppDeps, account: Account, mode: KeyMode, send: EmailSend): Promise<PreparedEmailSend> {
  return emailMessagesOf(deps, mode, send, await suppressedAmong(deps.db, account.id, send.listed.map((r) => r.email)));
}

/** Every recipient its msgid, given the suppressed ones (lower-cased, as store/suppressions.ts suppressedAmong gives them). */
export function emailMessagesOf(deps: AppDeps, mode: KeyMode, send: EmailSend, suppressed: ReadonlySet<string>): PreparedEmailSend {
  // A suppressed recipient is answered like any other (it gets a msgid) but is
  // stored as dropped: not billed, not sent, and its email.dropped event fires.
  const recipients: NewMessage[] = send.listed.map(({ email, role }) => {
    const dropped = suppressed.has(email.toLowerCase());
    return { id: deps.newId(), recipient: email, role, costMessages: dropped ? 0 : costOf(mode, 1), costBalance: 0, dropped };
  });
  return { sendId: deps.newId(), send, recipients, billed: recipients.filter((r) => r.dropped !== true).length };
}

/** The send and its messages as store/messages.ts insertSends writes them (with outbox rows and events). */
export function emailSendRows(deps: AppDeps, account: Account, prepared: PreparedEmailSend, now: number): SendWithMessages {
  const { payload, options } = prepared.send;
  return { send: { id: prepared.sendId, accountId: account.id, channel: 'email', payload, now, eventIds: deps.newId, options, requestId: deps.requestId }, messages: prepared.recipients };
}

/** The debit of a prepared send, in the caller's unit of work: false when it would overdraw (a test key's is never billed). */
export async function chargeEmailSend(tx: Tx, deps: AppDeps, account: Account, mode: KeyMode, prepared: PreparedEmailSend, now: number): Promise<boolean> {
  if (prepared.billed === 0 || mode !== 'live') return true;
  const left = await chargeMessages(tx, { account, mode, amount: prepared.billed, now, reason: 'email.send', sendId: prepared.sendId, ledgerId: deps.newId });
  return left !== null;
}

/** POST /v1/email's 200 body for a stored send. */
export const emailAnswer = (prepared: PreparedEmailSend): EmailAccepted => ({
  message: EMAIL_ACCEPTED_TEXT, to: prepared.recipients.map((r) => ({ email: r.recipient, msgid: r.id })),
});

/** After the commit: the accepted count, and the outbox and (for dropped recipients' events) the webhooks woken. */
export function emailSendsCommitted(deps: AppDeps, sends: readonly PreparedEmailSend[]): void {
  deps.metrics.messagesAccepted('email', sends.reduce((sum, s) => sum + s.billed, 0));
  if (sends.length > 0) deps.wakeOutbox();
  // Dropped (suppressed) recipients have their email.dropped event already.
  if (sends.some((s) => s.recipients.some((r) => r.dropped === true))) deps.wakeWebhooks?.();
}

/**
 * Stores a checked email send: suppressed recipients become dropped messages (a msgid,
 * no bill, their email.dropped event), the rest one billed message each, in one unit of
 * work whose debit refuses the whole send when it would overdraw.
 */
export async function storeEmailSend(deps: AppDeps, account: Account, mode: KeyMode, send: EmailSend, fallback: readonly CheckedLeg[] = []): Promise<Result<EmailAccepted>> {
  const prepared = await prepareEmailSend(deps, account, mode, send);
  const now = deps.clock();
  // The unit of work returns the answer: an Idempotency-Key is stored with it in the same transaction (app/idempotent-send.ts).
  const committed = await commitOrReject(deps.commit, async (tx): Promise<EmailAccepted> => {
    const rows = emailSendRows(deps, account, prepared, now);
    await insertSend(tx, rows.send, rows.messages);
    // The debit comes last: on PostgreSQL it locks the account row until commit, and
    // concurrent sends of one account queue on that lock; the shorter it is held, the better.
    if (!(await chargeEmailSend(tx, deps, account, mode, prepared, now))) throw new RejectionError({ code: 'noMessagesLeft' });
    // A chain's legs (an email to one recipient) are reserved and debited with its one message.
    const [first] = prepared.recipients;
    if (fallback.length === 0 || first === undefined) return emailAnswer(prepared);
    const reserved = await reserveFallbackLegs(tx, deps, { account, mode, legs: fallback, first: { msgid: first.id, sendId: prepared.sendId, channel: 'email' }, options: send.options, now });
    return { ...emailAnswer(prepared), fallback: reserved.chain };
  });
  if (!committed.ok) return committed;
  emailSendsCommitted(deps, [prepared]);
  return ok(committed.value);
}

interface RenderedContent {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
}

async function renderContent(deps: AppDeps, account: Account, request: EmailRequest): Promise<Result<RenderedContent>> {
  const { content } = request;
  if (content.mode === 'direct') {
    const html = looksLikeHtml(content.body);
    return ok({ subject: request.subject, html: html ? content.body : null, text: html ? null : content.body });
  }
  let template: EmailTemplate | undefined;
  try {
    template = await findEmailTemplate(deps.db, account.id, content.templateId);
  } catch (error) {
    // The database out is not "Error Fetching Template": the request is answered 503.
    if (isStoreUnavailable(error)) throw error;
    return reject('templateFetchFailed');
  }
  if (!template) return reject('templateNotFound');
  const { templates } = deps;
  const subject = inPart(templates.renderSubject(request.subject, content.variables), 'subject');
  if (!subject.ok) return subject;
  // Both parts compile before either renders: a template refused is answered before any rendering work.
  const html = inPart(templates.compile(template.html, 'html'), 'html');
  if (!html.ok) return html;
  const textTemplate = template.text === null ? null : inPart(templates.compile(template.text, 'text'), 'text');
  if (textTemplate !== null && !textTemplate.ok) return textTemplate;
  const renderedHtml = templates.render(html.value, content.variables);
  if (!renderedHtml.ok) return renderedHtml;
  let text: string | null = null;
  if (textTemplate !== null) {
    const rendered = templates.render(textTemplate.value, content.variables);
    if (!rendered.ok) return rendered;
    text = rendered.value;
  }
  return ok({ subject: subject.value, html: renderedHtml.value, text });
}
