import { channelActive, type Account } from '../domain/account.ts';
import { domainOf } from '../domain/email-address.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { effectiveTracking } from '../domain/send-options.ts';
import type { SubmittedEmail } from '../domain/submitted-email.ts';
import { allowListAdmits } from './account-allow-list.ts';
import { authenticateApiKey, noteKeyUse, type ApiKeyRecord, type KeyDeps } from './api-keys.ts';
import type { AppDeps } from './deps.ts';
import { cachedAccount, verifiedSenderDomain } from './read-caches.ts';
import { storeEmailSend, UNTRACKED, type EmailAccepted } from './send-email.ts';

// SMTP submission's use cases (src/submission/ speaks the protocol): the same guards as
// POST /v1/email, asked at the SMTP step where each can first be answered, and the same
// send (app/send-email.ts storeEmailSend) once the message is read.

export interface Submitter {
  readonly accountId: string;
  readonly key: ApiKeyRecord;
  readonly mode: KeyMode;
}

/**
 * AUTH: the password is an API key with the `email` scope, used from an address the
 * account's allow-list admits. The user name is not read (docs/smtp-submission.md).
 */
export async function authenticateSubmitter(deps: KeyDeps, password: string, address: string): Promise<Result<Submitter>> {
  const authentication = await authenticateApiKey(deps, password);
  if (authentication.kind === 'invalid') return reject('invalidApiKey');
  const { account, key } = authentication;
  if (!key.scopes.includes('email')) return reject('keyNotAuthorized');
  if (!allowListAdmits(account, address)) return reject('ipNotAllowed');
  await noteKeyUse(deps, key.id, address);
  return ok({ accountId: account.id, key, mode: key.mode });
}

/** MAIL FROM, first: the account as it is now (a second's cache, as the API reads it) may send email. */
export async function submittingAccount(deps: AppDeps, submitter: Submitter): Promise<Result<Account>> {
  const account = await cachedAccount(deps, submitter.accountId);
  return account === undefined || !channelActive(account, 'email') ? reject('serviceInactive') : ok(account);
}

/** MAIL FROM, last: the envelope sender is of a verified sender domain (a null sender is not). */
export async function checkEnvelopeSender(deps: AppDeps, account: Account, envelopeFrom: string): Promise<Result<void>> {
  if (envelopeFrom === '' || (await verifiedSenderDomain(deps, account.id, domainOf(envelopeFrom))) === undefined) return reject('domainNotPermitted');
  return ok(undefined);
}

/**
 * DATA: the header From's domain must be verified too; then one message per envelope
 * recipient, billed, suppressed and tracked as POST /v1/email's, the client's MIME kept.
 */
export async function submitEmail(deps: AppDeps, account: Account, mode: KeyMode, email: SubmittedEmail): Promise<Result<EmailAccepted>> {
  if (!channelActive(account, 'email')) return reject('serviceInactive');
  if ((await verifiedSenderDomain(deps, account.id, domainOf(email.from.email))) === undefined) return reject('domainNotPermitted');
  // A test key's email is never tracked (as the API's: docs/tracking.md).
  const tracking = mode === 'test' ? UNTRACKED : effectiveTracking(email.options, account.tracking, email.hasHtml);
  const payload: EmailPayload = {
    // The bodies stay in the MIME; the views read them from there (app/email-bodies.ts).
    from: email.from, replyTo: email.replyTo, subject: email.subject, html: null, text: null,
    to: email.to, cc: email.cc, attachments: [], tracking, certified: email.options.certified,
    submitted: { mime: email.mime.toString('base64') },
  };
  return storeEmailSend(deps, account, mode, {
    payload,
    options: { family: 'transactional', metadata: email.options.metadata, certified: email.options.certified, tracking, campaignName: null, mode, source: 'smtp' },
    listed: email.recipients,
  });
}
