import { isJsonObject } from '../domain/json-object.ts';
import { ok, type Result } from '../domain/result.ts';
import type { RequestLimits } from '../domain/request-limits.ts';
import { parseSendOptions } from '../domain/send-options.ts';
import type { SendOptions } from '../store/messages.ts';

/**
 * The event fields an SMS or WhatsApp send may carry (`metadata`, `campaign`),
 * read after the channel's own request parsing has accepted the body, so the
 * spec's error order is untouched.
 */
export function eventOptions(body: unknown, limits: RequestLimits): Result<SendOptions> {
  if (!isJsonObject(body)) return ok({ family: 'transactional', metadata: null, certified: false, tracking: { opens: false, clicks: false } });
  const parsed = parseSendOptions(body, 'other', limits);
  if (!parsed.ok) return parsed;
  return ok({
    family: parsed.value.campaign === null ? 'transactional' : 'campaign',
    metadata: parsed.value.metadata,
    certified: false,
    tracking: { opens: false, clicks: false },
  });
}
