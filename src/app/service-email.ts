import type { EmailPayload } from '../domain/outbound.ts';
import { insertAccount } from '../store/accounts.ts';
import type { Executor } from '../store/database.ts';
import { insertSend } from '../store/messages.ts';
import { putSettingIfAbsent } from '../store/settings.ts';
import type { AuthDeps } from './sessions.ts';

// herald's own emails to users (invitations, password resets), from the operator's
// sender (HERALD_AUTH_EMAIL_FROM), through herald's ordinary email path: a send, a
// message with its events and an outbox row, delivered by the configured transport.
// They belong to a service account of herald's own, never to the user's account: a
// reset link in the account's message log would hand the owner's password to any
// viewer. That account is made on first use (its id in the settings table), inactive,
// with no key and no messages: only the operator sees it; its emails cost nothing.

const SETTING = 'service_email_account_id';
export const SERVICE_EMAIL_ACCOUNT_NAME = 'herald service email';

async function serviceAccountId(deps: AuthDeps, tx: Executor, now: number): Promise<string> {
  const candidate = deps.newId();
  const id = await putSettingIfAbsent(tx, SETTING, candidate);
  if (id === candidate) {
    await insertAccount(tx, id, now, {
      name: SERVICE_EMAIL_ACCOUNT_NAME, active: false, messagesLeft: 0, services: { email: true, sms: false, whatsapp: false },
    });
  }
  return id;
}

export interface ServiceEmail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** What the email is, in the message's metadata: `invitation` | `password_reset`. */
  readonly kind: string;
}

/** Queues the email when herald has a sender; false when it has none (nothing is sent). */
export async function queueServiceEmail(deps: AuthDeps, email: ServiceEmail): Promise<boolean> {
  const from = deps.auth.emailFrom;
  if (from === undefined) return false;
  const now = deps.clock();
  await deps.db.transaction().execute(async (tx) => {
    const accountId = await serviceAccountId(deps, tx, now);
    // Text only: nothing to track, nothing a mail client renders from the account's name.
    const payload: EmailPayload = {
      from, replyTo: from, subject: email.subject, html: null, text: email.text,
      to: [email.to], cc: [], attachments: [], tracking: { opens: false, clicks: false }, certified: false,
    };
    await insertSend(tx, {
      id: deps.newId(), accountId, channel: 'email', payload, now, eventIds: deps.newId,
      options: { family: 'transactional', certified: false, tracking: { opens: false, clicks: false }, metadata: { herald: email.kind } },
    }, [{ id: deps.newId(), recipient: email.to, role: 'to', costMessages: 0, costBalance: 0 }]);
  });
  deps.wakeOutbox();
  return true;
}
