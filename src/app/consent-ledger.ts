import type { Channel } from '../domain/account.ts';
import { invalidField } from '../domain/admin-input.ts';
import { csvLine } from '../domain/csv-line.ts';
import { ok, type Result } from '../domain/result.ts';
import { listLedger, optOutsOf, type ConsentChange, type LedgerEntry } from '../store/consent-ledger.ts';
import { addSuppression, listSuppressions, removeSuppressionOf } from '../store/suppressions.ts';
import { recordConsentChange } from './consent-changes.ts';
import type { AppDeps } from './deps.ts';

// GET /v1/consent, its exports, and changes by API or in the web application. Consent
// (what a person asked for) and suppressions (what delivery taught: bounces) are shown
// apart: an unsubscribe is both, a hard bounce only the second.

const MAX_HISTORY = 200;
const EXPORT_PAGE = 1000;

export interface LedgerEntryView {
  readonly id: string;
  readonly channel: Channel;
  readonly address: string;
  readonly sender: string;
  readonly change: ConsentChange;
  readonly source: string;
  readonly keyword: string | null;
  readonly proof: Readonly<Record<string, unknown>>;
  readonly at: string;
}

export interface ConsentView {
  readonly address: string;
  /** Per channel: opted_out when an opt-out of every sender or of `senders` stands, else opted_in. */
  readonly channels: Readonly<Record<Channel, { readonly state: 'opted_in' | 'opted_out'; readonly opted_out_of: readonly { readonly sender: string; readonly since: string }[] }>>;
  /** The email suppression, a delivery matter kept apart: null when the address is not suppressed. */
  readonly suppression: { readonly reason: string; readonly since: string } | null;
  readonly history: readonly LedgerEntryView[];
}

const view = (entry: LedgerEntry): LedgerEntryView => ({
  id: entry.id, channel: entry.channel, address: entry.address, sender: entry.sender, change: entry.change, source: entry.source,
  keyword: entry.keyword, proof: entry.proof, at: new Date(entry.at).toISOString(),
});

/** An address as the ledger keeps it: email lower-cased, numbers as written (`+` and digits). */
export function consentAddress(raw: string): Result<string> {
  const address = raw.trim();
  if (address === '' || address.length > 320) return invalidField('address', 'must be an email address or a number in + and digits');
  if (address.includes('@')) return ok(address.toLowerCase());
  return /^\+[0-9]{6,15}$/.test(address) ? ok(address) : invalidField('address', 'must be an email address or a number in + and digits');
}

export async function getConsent(deps: Pick<AppDeps, 'db'>, accountId: string, rawAddress: string): Promise<Result<ConsentView>> {
  const address = consentAddress(rawAddress);
  if (!address.ok) return address;
  const optOuts = await optOutsOf(deps.db, accountId, address.value);
  const stateOf = (channel: Channel): ConsentView['channels'][Channel] => {
    const of = optOuts.filter((o) => o.channel === channel).map((o) => ({ sender: o.sender, since: new Date(o.at).toISOString() }));
    return { state: of.length > 0 ? 'opted_out' : 'opted_in', opted_out_of: of };
  };
  const channels = { email: stateOf('email'), sms: stateOf('sms'), whatsapp: stateOf('whatsapp') };
  const [suppressed] = address.value.includes('@') ? await listSuppressions(deps.db, accountId, { among: [address.value], limit: 1 }) : [];
  const history = await listLedger(deps.db, accountId, { address: address.value, limit: MAX_HISTORY });
  return ok({
    address: address.value,
    channels,
    suppression: suppressed !== undefined ? { reason: suppressed.reason, since: new Date(suppressed.createdAt).toISOString() } : null,
    history: history.map(view),
  });
}

export const LEDGER_CSV_HEADER = ['id', 'at', 'channel', 'address', 'sender', 'change', 'source', 'keyword', 'proof'] as const;

/** The whole ledger (or one address's), newest first, as CSV lines or JSON array pieces, a page at a time. */
export async function* exportLedger(deps: Pick<AppDeps, 'db'>, accountId: string, format: 'csv' | 'json', address: string | undefined): AsyncGenerator<string> {
  yield format === 'csv' ? `${csvLine(LEDGER_CSV_HEADER)}\r\n` : '[';
  let before: string | undefined;
  let first = true;
  for (;;) {
    const page = await listLedger(deps.db, accountId, { address, before, limit: EXPORT_PAGE });
    for (const entry of page.map(view)) {
      if (format === 'csv') {
        yield `${csvLine([entry.id, entry.at, entry.channel, entry.address, entry.sender, entry.change, entry.source, entry.keyword, JSON.stringify(entry.proof)])}\r\n`;
      } else {
        yield `${first ? '' : ','}${JSON.stringify(entry)}`;
        first = false;
      }
    }
    if (page.length < EXPORT_PAGE) break;
    before = page.at(-1)?.id;
  }
  if (format === 'json') yield ']';
}

export interface ConsentChangeBody {
  readonly channel: Channel;
  readonly address: string;
  readonly change: ConsentChange;
  readonly sender?: string;
}

/** POST /v1/consent: a change made by the account (its API or its web application), with the request as proof. */
export async function changeConsent(
  deps: Pick<AppDeps, 'db' | 'commit' | 'clock' | 'newId' | 'wakeWebhooks'>,
  accountId: string,
  body: ConsentChangeBody,
  proof: { readonly source: 'api' | 'web'; readonly requestId: string; readonly ip: string; readonly userAgent: string | null },
): Promise<Result<LedgerEntryView>> {
  const address = consentAddress(body.address);
  if (!address.ok) return address;
  if (body.channel !== 'email' && !address.value.startsWith('+')) return invalidField('address', `must be a number in + and digits for ${body.channel}`);
  const at = deps.clock();
  await deps.commit.run(async (tx) => {
    await recordConsentChange(tx, deps, {
      accountId, channel: body.channel, address: address.value, sender: body.sender ?? '', change: body.change, source: proof.source,
      proof: { request_id: proof.requestId, ip: proof.ip, ...(proof.userAgent === null ? {} : { user_agent: proof.userAgent }) }, at,
    });
    // Email is held back by the suppression list, as an unsubscribe link does; an opt-in
    // lifts only an unsubscribe, never what delivery taught (a bounce, a complaint).
    if (body.channel !== 'email') return;
    if (body.change === 'opted_out') await addSuppression(tx, { accountId, address: address.value, reason: 'unsubscribed', messageId: null, at });
    else await removeSuppressionOf(tx, accountId, address.value, 'unsubscribed');
  });
  deps.wakeWebhooks?.();
  const [entry] = await listLedger(deps.db, accountId, { address: address.value, limit: 1 });
  if (entry === undefined) throw new Error('a consent change vanished after its commit');
  return ok(view(entry));
}
