import { channelActive, type Account } from '../domain/account.ts';
import { domainOf } from '../domain/email-address.ts';
import { looksLikeHtml, parseEmailRequest, type EmailRequest } from '../domain/email-request.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { ok, reject, RejectionError, type Result } from '../domain/result.ts';
import { commitOrReject } from './commit-or-reject.ts';
import { findEmailTemplate, type EmailTemplate } from '../store/email-templates.ts';
import { isStoreUnavailable } from '../store/store-unavailable.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import { chargeMessages, costOf } from './send-charge.ts';
import { insertSend, type NewMessage, type SendOptions } from '../store/messages.ts';
import { suppressedAmong } from '../store/suppressions.ts';
import { effectiveTracking } from '../domain/send-options.ts';
import type { AppDeps } from './deps.ts';
import { verifiedSenderDomain } from './read-caches.ts';

export interface EmailAccepted {
  readonly message: string;
  readonly to: readonly { readonly email: string; readonly msgid: string }[];
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
  if (!channelActive(account, 'email')) return reject('serviceInactive');
  const parsed = parseEmailRequest(body, deps.limits);
  if (!parsed.ok) return parsed;
  const request = parsed.value;

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
    metadata: request.options.metadata, certified: request.options.certified, tracking, campaignName: request.options.campaign, mode,
  };
  return storeEmailSend(deps, account, mode, { payload, options, listed });
}

/** One email send as both doors make it (POST /v1/email, SMTP submission): the shared content and who it goes to. */
export interface EmailSend {
  readonly payload: EmailPayload;
  readonly options: SendOptions;
  readonly listed: readonly { readonly email: string; readonly role: 'to' | 'cc' | 'bcc' }[];
}

/**
 * Stores a checked email send: suppressed recipients become dropped messages (a msgid,
 * no bill, their email.dropped event), the rest one billed message each, in one unit of
 * work whose debit refuses the whole send when it would overdraw.
 */
export async function storeEmailSend(deps: AppDeps, account: Account, mode: KeyMode, send: EmailSend): Promise<Result<EmailAccepted>> {
  const { payload, options, listed } = send;
  // A suppressed recipient is answered like any other (it gets a msgid) but is
  // stored as dropped: not billed, not sent, and its email.dropped event fires.
  const suppressed = await suppressedAmong(deps.db, account.id, listed.map((r) => r.email));
  const recipients: NewMessage[] = listed.map(({ email, role }) => {
    const dropped = suppressed.has(email.toLowerCase());
    return { id: deps.newId(), recipient: email, role, costMessages: dropped ? 0 : costOf(mode, 1), costBalance: 0, dropped };
  });
  const billed = recipients.filter((r) => r.dropped !== true).length;

  const sendId = deps.newId();
  const now = deps.clock();
  // The unit of work returns the answer: an Idempotency-Key is stored with it in the same transaction (app/idempotent-send.ts).
  const committed = await commitOrReject(deps.commit, async (tx): Promise<EmailAccepted> => {
    await insertSend(tx, { id: sendId, accountId: account.id, channel: 'email', payload, now, eventIds: deps.newId, options, requestId: deps.requestId }, recipients);
    // The debit comes last: on PostgreSQL it locks the account row until commit, and
    // concurrent sends of one account queue on that lock; the shorter it is held, the better.
    if (billed > 0 && mode === 'live') {
      const left = await chargeMessages(tx, { account, mode, amount: billed, now, reason: 'email.send', sendId, ledgerId: deps.newId });
      if (left === null) throw new RejectionError({ code: 'noMessagesLeft' });
    }
    return { message: EMAIL_ACCEPTED_TEXT, to: recipients.map((r) => ({ email: r.recipient, msgid: r.id })) };
  });
  if (!committed.ok) return committed;
  deps.metrics.messagesAccepted('email', billed);
  deps.wakeOutbox();
  // Dropped (suppressed) recipients have their email.dropped event already.
  if (recipients.some((r) => r.dropped === true)) deps.wakeWebhooks?.();
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
  const subject = templates.renderSubject(request.subject, content.variables);
  if (!subject.ok) return subject;
  // Both parts compile before either renders: a template refused is answered before any rendering work.
  const html = templates.compile(template.html, 'html');
  if (!html.ok) return html;
  const textTemplate = template.text === null ? null : templates.compile(template.text, 'text');
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
