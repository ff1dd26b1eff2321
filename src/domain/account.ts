import type { Minor } from './money.ts';

export const CHANNELS = ['email', 'sms', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * Whom the IP allow-list binds: `all`, API keys and the web application's sessions (the
 * default, and what every account did before the setting); `keys`, API keys only, so
 * people sign in from wherever they are (docs/users-and-sessions.md).
 */
export const ALLOW_LIST_APPLIES_TO = ['keys', 'all'] as const;
export type AllowListAppliesTo = (typeof ALLOW_LIST_APPLIES_TO)[number];
export const isAllowListAppliesTo = (value: unknown): value is AllowListAppliesTo => ALLOW_LIST_APPLIES_TO.includes(value as AllowListAppliesTo);

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly active: boolean;
  readonly messagesLeft: number;
  readonly balance: Minor;
  readonly whatsappPrice: Minor;
  readonly rateLimitPerSecond: number;
  readonly ipAllowList: readonly string[];
  readonly allowListAppliesTo: AllowListAppliesTo;
  readonly services: Readonly<Record<Channel, boolean>>;
  readonly webhookUrl: string | null;
  /** Open and click tracking for HTML email, unless a send says otherwise. */
  readonly tracking: { readonly opens: boolean; readonly clicks: boolean };
  /** The Cloud API phone number this account sends from; null: WhatsApp delivery is not configured. */
  readonly whatsappPhoneNumberId: string | null;
  /** Whether a Cloud API access token is stored. The token itself never enters this object, so no view of an account can leak it. */
  readonly whatsappAccessTokenSet: boolean;
  /** The WhatsApp Business account (WABA) whose templates this account submits to Meta; null: templates stay in herald. */
  readonly whatsappBusinessAccountId: string | null;
  /** The SMS senders (domain/sms-sender.ts), the first the default; empty: the transport's own sender. */
  readonly smsSenders: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

export const DEFAULT_RATE_LIMIT_PER_SECOND = 2;

/** Whether the account may send on `channel` at all (the spec's "current service is not active"). */
export function channelActive(account: Account, channel: Channel): boolean {
  return account.active && account.services[channel];
}
