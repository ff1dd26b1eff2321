// herald's own emails to users (invitations, password resets) as the capture transport
// stored them, read back as a recipient would: the text and the link in it.
import type { Service } from '../../src/service.ts';
import { findCapture } from '../../src/store/messages.ts';
import { getSetting } from '../../src/store/settings.ts';

export interface CapturedServiceEmail {
  readonly recipient: string;
  /** The raw MIME message. */
  readonly raw: string;
}

/** Delivers what is queued, then every service email captured so far, oldest first. */
export async function serviceEmails(service: Service): Promise<CapturedServiceEmail[]> {
  await service.worker.drain();
  const accountId = await getSetting(service.deps.db, 'service_email_account_id');
  if (accountId === undefined) return [];
  const messages = await service.deps.db.selectFrom('messages').select(['id', 'recipient']).where('account_id', '=', accountId).orderBy('id').execute();
  const emails: CapturedServiceEmail[] = [];
  for (const message of messages) {
    const capture = await findCapture(service.deps.db, message.id);
    if (capture !== undefined) emails.push({ recipient: message.recipient, raw: capture.body });
  }
  return emails;
}

/** The link of the given page in a captured email (quoted-printable soft breaks undone). */
export function linkIn(raw: string, page: string): string | undefined {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return new RegExp(`https?://[^\\s]+${page}#[A-Za-z0-9_-]+`).exec(text)?.[0];
}
