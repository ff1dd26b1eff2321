import type { Account, AllowListAppliesTo, Channel } from '../domain/account.ts';
import type { Scope } from '../domain/access.ts';
import type { KeyMode } from '../domain/key-mode.ts';
import type { EventType } from '../domain/event-catalogue.ts';
import { formatMoney } from '../domain/money.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { findAccount } from '../store/accounts.ts';
import { listApiKeys } from '../store/api-keys.ts';
import { listLedger, type LedgerReason } from '../store/ledger.ts';
import { listSenderDomains } from '../store/sender-domains.ts';
import { findWebhookSettings } from '../store/webhook-settings.ts';
import type { IssuedKey } from './api-keys.ts';
import type { AppDeps } from './deps.ts';

// How the operator sees an account, in the API and the CLI alike: money as JSON
// numbers (formatMoney), times as UTC ISO-8601. Key material never appears here.

export interface AccountBody {
  readonly id: string;
  readonly name: string;
  readonly active: boolean;
  readonly messagesLeft: number;
  readonly balance: number;
  readonly whatsappPrice: number;
  readonly rateLimitPerSecond: number;
  readonly ipAllowList: readonly string[];
  /** Whom the allow-list binds: `all` (keys and sessions) or `keys`. */
  readonly allowListAppliesTo: AllowListAppliesTo;
  readonly services: Readonly<Record<Channel, boolean>>;
  readonly webhookUrl: string | null;
  /** The signing secret (shown to the operator as to the account); with accountBodyOf, always present. */
  readonly webhookSecret?: string | null;
  /** The event filter; null: every type. With accountBodyOf, always present. */
  readonly webhookEvents?: readonly EventType[] | null;
  /** Open and click tracking of HTML email when a send does not say. */
  readonly tracking: { readonly opens: boolean; readonly clicks: boolean };
  readonly whatsappPhoneNumberId: string | null;
  /** Write-only: `"set"` when a token is stored, never the token itself. */
  readonly whatsappAccessToken: 'set' | null;
  /** Where the account's templates are submitted for approval; null: they stay in herald. */
  readonly whatsappBusinessAccountId: string | null;
  /** The SMS senders, the first the default; empty: the transport's own. */
  readonly smsSenders: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface ApiKeyView {
  readonly id: string;
  /** What the account calls it; '' for none. */
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly mode: KeyMode;
}

export interface AccountDetails extends AccountBody {
  readonly apiKeys: readonly ApiKeyView[];
  readonly domains: readonly { readonly domain: string; readonly verified: boolean }[];
}

export interface LedgerEntryView {
  readonly id: string;
  readonly at: string;
  readonly messagesDelta: number;
  readonly balanceDelta: number;
  readonly reason: LedgerReason;
  readonly sendId: string | null;
  /** The operator's words for a top-up. */
  readonly note: string | null;
}

/** A key as shown the one time it exists in clear: right after it was issued. */
export interface IssuedKeyBody {
  readonly id: string;
  readonly apiKey: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: string | null;
  /** live, or test: sends through the capture transports, unbilled (docs/sandbox.md). */
  readonly mode: KeyMode;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** The account's body; its webhook secret and filter only when given (accountBodyOf reads them). */
export function accountBody(account: Account, webhook?: { readonly secret: string | null; readonly events: readonly EventType[] | null }): AccountBody {
  return {
    id: account.id,
    name: account.name,
    active: account.active,
    messagesLeft: account.messagesLeft,
    balance: formatMoney(account.balance),
    whatsappPrice: formatMoney(account.whatsappPrice),
    rateLimitPerSecond: account.rateLimitPerSecond,
    ipAllowList: account.ipAllowList,
    allowListAppliesTo: account.allowListAppliesTo,
    services: { email: account.services.email, sms: account.services.sms, whatsapp: account.services.whatsapp },
    webhookUrl: account.webhookUrl,
    ...(webhook === undefined ? {} : { webhookSecret: webhook.secret, webhookEvents: webhook.events }),
    tracking: { opens: account.tracking.opens, clicks: account.tracking.clicks },
    whatsappPhoneNumberId: account.whatsappPhoneNumberId,
    whatsappAccessToken: account.whatsappAccessTokenSet ? 'set' : null,
    whatsappBusinessAccountId: account.whatsappBusinessAccountId,
    smsSenders: account.smsSenders,
    createdAt: iso(account.createdAt),
    updatedAt: iso(account.updatedAt),
  };
}

export function issuedKeyBody(key: IssuedKey): IssuedKeyBody {
  return { id: key.id, apiKey: key.apiKey, scopes: key.scopes, expiresAt: isoOrNull(key.expiresAt), mode: key.mode };
}

/** The account's whole body, webhook secret and filter included: the operator API's view. */
export async function accountBodyOf(deps: AppDeps, account: Account): Promise<AccountBody> {
  const webhook = await findWebhookSettings(deps.db, account.id);
  return accountBody(account, { secret: webhook?.secret ?? null, events: webhook?.events ?? null });
}

/** True when the account exists; for operations that only attach something to it. */
export async function accountExists(deps: AppDeps, accountId: string): Promise<boolean> {
  return (await findAccount(deps.db, accountId)) !== undefined;
}

/** The account with its keys (never their material) and sender domains. */
export async function viewAccount(deps: AppDeps, accountId: string): Promise<Result<AccountDetails>> {
  const account = await findAccount(deps.db, accountId);
  if (!account) return reject('notFound');
  const [keys, domains] = await Promise.all([listApiKeys(deps.db, accountId), listSenderDomains(deps.db, accountId)]);
  return ok({
    ...(await accountBodyOf(deps, account)),
    apiKeys: keys.map((k) => ({
      id: k.id, name: k.name, scopes: k.scopes, createdAt: iso(k.createdAt), expiresAt: isoOrNull(k.expiresAt), revokedAt: isoOrNull(k.revokedAt), mode: k.mode,
    })),
    domains: domains.map((d) => ({ domain: d.domain, verified: d.verified })),
  });
}

/** Every movement of messages and money of the account, oldest first (ids are UUIDv7). */
export async function viewLedger(deps: AppDeps, accountId: string): Promise<Result<{ entries: LedgerEntryView[] }>> {
  if (!(await accountExists(deps, accountId))) return reject('notFound');
  const entries = await listLedger(deps.db, accountId);
  return ok({
    entries: entries.map((e) => ({
      id: e.id, at: iso(e.at), messagesDelta: e.messagesDelta, balanceDelta: formatMoney(e.balanceDelta), reason: e.reason, sendId: e.sendId, note: e.note ?? null,
    })),
  });
}
