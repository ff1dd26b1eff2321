// PROVISIONAL: the account operations of ACCOUNT-API.md until the back end's
// src/http/account-api-schemas.ts lands; then this file re-exports its types.
import type { Channel } from '@herald/domain/account.ts';

export type Role = 'owner' | 'developer' | 'viewer';
export type KeyScope = Channel | 'webhooks' | 'account';

export interface Session {
  readonly user: { readonly user_id: string; readonly email: string; readonly role: Role; readonly totp_enabled: boolean };
  readonly account: { readonly account_id: string; readonly name: string };
  readonly csrf_token: string;
  readonly expires_at: string;
}

export interface SignInInput { email: string; password: string; totp_code?: string }
export interface Invitation { readonly email: string; readonly account_name: string; readonly role: Role; readonly expires_at: string }
export interface TotpSetup { readonly secret: string; readonly otpauth_url: string }

export interface AccountView {
  readonly account_id: string;
  readonly name: string;
  readonly active: boolean;
  readonly messages_left: number;
  readonly balance: number;
  readonly whatsapp_price: number;
  readonly rate_limit_per_second: number;
  readonly services: Readonly<Record<Channel, boolean>>;
  readonly ip_allow_list: readonly string[];
  /** The address this request came from, as herald sees it (for the allow-list lock-out warning). */
  readonly caller_ip?: string;
}

export interface Counts { readonly accepted: number; readonly delivered: number; readonly bounced: number; readonly failed: number }
export interface UsageDay { readonly date: string; readonly email: Counts; readonly sms: Counts; readonly whatsapp: Counts }
export interface Usage {
  readonly days: readonly UsageDay[];
  readonly today: Readonly<Record<Channel, number>>;
  readonly bounce_rate: number;
  readonly complaint_rate: number;
}

export interface LedgerEntry {
  readonly entry_id: string;
  readonly at: string;
  readonly kind: string;
  readonly messages: number;
  readonly amount: number;
  readonly reason: string | null;
  readonly msgid?: string | null;
}
export interface LedgerPage { readonly entries: readonly LedgerEntry[]; readonly next_cursor: string | null }

export interface ApiKeyListed {
  readonly key_id: string;
  readonly name: string;
  readonly scopes: readonly KeyScope[];
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
  readonly last_used_ip: string | null;
  readonly revoked_at: string | null;
}
export interface ApiKeyList { readonly api_keys: readonly ApiKeyListed[] }
export interface NewApiKeyInput { name: string; scopes: KeyScope[]; expires_at?: string }
export interface ApiKeyCreated {
  readonly key_id: string;
  readonly api_key: string;
  readonly name: string;
  readonly scopes: readonly KeyScope[];
  readonly created_at: string;
  readonly expires_at: string | null;
}

export interface AccountUser {
  readonly user_id: string;
  readonly email: string;
  readonly role: Role;
  readonly status: 'invited' | 'active';
  readonly totp_enabled: boolean;
  readonly created_at: string;
  readonly last_sign_in_at: string | null;
  readonly active_sessions: number;
}
export interface UserList { readonly users: readonly AccountUser[] }
export interface UserInvited {
  readonly user_id: string;
  readonly email: string;
  readonly role: Role;
  readonly status: 'invited';
  readonly invitation_url: string;
  readonly invitation_expires_at: string;
}

export interface RenderInput { template_id?: string; subject?: string; html?: string; text?: string; variables?: Record<string, string> }
export interface Rendered { readonly subject: string; readonly html: string; readonly text: string }

// ---- operator console ----
export interface OperatorSession { readonly csrf_token: string }
export interface AccountSearchPage { readonly accounts: readonly OperatorAccountSummary[]; readonly next_cursor: string | null }
export interface OperatorAccountSummary {
  readonly id: string;
  readonly name: string;
  readonly active: boolean;
  readonly messagesLeft: number;
  readonly balance: number;
  readonly createdAt: string;
}
export interface TopUpInput { messages?: number; balance?: number; reason: string }
export interface Health {
  readonly processes: readonly { readonly role: string; readonly pid: number; readonly host: string; readonly started_at: string; readonly last_seen_at: string }[];
  readonly queues: readonly { readonly channel: Channel; readonly queued: number; readonly oldest_age_seconds: number | null }[];
  readonly webhook_backlog: number;
  readonly failures_last_hour: number;
}
