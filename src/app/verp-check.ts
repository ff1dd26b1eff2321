import type { VerpParts, VerpTags } from '../domain/verp-address.ts';
import type { Executor } from '../store/database.ts';
import { getSetting, putSettingIfAbsent } from '../store/settings.ts';

// Whether a VERP address in an inbound report proves the report is about our message:
// its tag verifies (domain/verp-address.ts), or it has no tag and the message is one
// sent before tags existed, still within the email retry horizon. The time tags began
// is kept in the settings table, written by the first process that composes tagged
// addresses (service start), so every process of a deployment judges alike.

const SETTING = 'verp_tags_since';

/** Records, once per installation, when envelope senders began carrying tags; later calls keep the first time. */
export async function recordVerpTagsSince(db: Executor, now: number): Promise<void> {
  await putSettingIfAbsent(db, SETTING, String(now));
}

/** When tags began (epoch ms), or undefined on a store no process with tags has opened. */
export async function verpTagsSince(db: Executor): Promise<number | undefined> {
  const stored = await getSetting(db, SETTING);
  const at = stored === undefined ? Number.NaN : Number(stored);
  return Number.isFinite(at) ? at : undefined;
}

/** What checks a VERP address: the installation's tags and how long an untagged address is taken. */
export interface VerpCheck {
  readonly tags: VerpTags;
  /** HERALD_EMAIL_RETRY_HOURS in ms: an untagged address is taken for a message this young at most. */
  readonly untaggedHorizonMs: number;
}

/** The verdict on one address: believed, or why not (the reason a forged report is counted under). */
export type VerpVerdict = 'tagged' | 'untagged-before-tags' | 'wrong-tag' | 'untagged';

/**
 * The verdict on `address` for the message it names (created at `createdAt`), at `now`.
 * An untagged address is believed only for a message created before tags began and no
 * older than the retry horizon: after that window nobody can write one that counts.
 */
export function judgeVerp(
  check: VerpCheck, address: VerpParts, message: { readonly createdAt: number }, context: { readonly now: number; readonly tagsSince: number | undefined },
): VerpVerdict {
  if (address.tag !== null) return check.tags.verify(address.msgid, address.tag) ? 'tagged' : 'wrong-tag';
  const { now, tagsSince } = context;
  const beforeTags = tagsSince !== undefined && message.createdAt < tagsSince;
  return beforeTags && now - message.createdAt <= check.untaggedHorizonMs ? 'untagged-before-tags' : 'untagged';
}
