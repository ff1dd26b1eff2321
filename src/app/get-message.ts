import type { Channel } from '../domain/account.ts';
import { findCapture, findMessage, listMessageEvents } from '../store/messages.ts';
import type { AppDeps } from './deps.ts';

export interface MessageView {
  readonly msgid: string;
  readonly channel: Channel;
  readonly status: string;
  readonly recipient: string;
  readonly created_at: string;
  readonly events: readonly ({ readonly type: string; readonly at: string } & Readonly<Record<string, unknown>>)[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** GET /v1/messages/:msgid — the account's own messages only. */
export async function getMessage(deps: AppDeps, accountId: string, msgid: string): Promise<MessageView | undefined> {
  const message = await findMessage(deps.db, accountId, msgid);
  if (!message) return undefined;
  const events = await listMessageEvents(deps.db, message.id);
  return {
    msgid: message.id,
    channel: message.channel,
    status: message.status,
    recipient: message.recipient,
    created_at: iso(message.createdAt),
    events: events.map((e) => ({ ...e.data, type: e.type, at: iso(e.at) })),
  };
}

/** GET /v1/messages/:msgid/raw — what the capture transport stored, for the account's own message. */
export async function getCapturedMessage(deps: AppDeps, accountId: string, msgid: string): Promise<{ contentType: string; body: string } | undefined> {
  const message = await findMessage(deps.db, accountId, msgid);
  if (!message) return undefined;
  return findCapture(deps.db, message.id);
}
