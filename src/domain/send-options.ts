import { Buffer } from 'node:buffer';
import { isJsonObject, ownField, type JsonObject } from './json-object.ts';
import { DEFAULT_LIMITS, type RequestLimits } from './request-limits.ts';
import { ok, reject, type Result } from './result.ts';

// herald's own request fields, beyond the spec's, that steer events rather than
// content. All optional; a client that never sends them gets the spec's behaviour.
//
//   metadata   a JSON object (≤ 4,096 bytes as JSON, ≤ 16 levels deep: HERALD_MAX_METADATA_*)
//              echoed in every webhook event
//   campaign   a name (≤ 200 characters): the send belongs to the `campaign` family
//   certified  email only: keep signed evidence of delivery (no open/click tracking)
//   tracking   email only: { opens?: boolean, clicks?: boolean } over the account's defaults

const CAMPAIGN_MAX = 200;

export interface SendOptionsRequest {
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly campaign: string | null;
  readonly certified: boolean;
  readonly tracking: { readonly opens?: boolean; readonly clicks?: boolean };
}

const invalid = (detail: string) => reject('invalidField', { detail });

/**
 * Whether a parsed JSON value nests deeper than `maxDepth` (the value itself is level 1) or
 * certainly serialises to more than `maxBytes`: one walk with a stack of its own (a recursive
 * JSON.stringify of 5,000 levels overflows the call stack), stopping at the first excess.
 * Its byte count is a lower bound of the JSON (names, strings and punctuation, unescaped),
 * so a large value is refused before it is serialised; the exact size is measured after.
 */
function metadataExcess(value: unknown, maxDepth: number, maxBytes: number): 'depth' | 'size' | null {
  const stack: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 1 }];
  let bytes = 0;
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value;
    if (typeof current === 'string') bytes += current.length + 2;
    else if (typeof current !== 'object' || current === null) bytes += 1;
    else {
      if (item.depth > maxDepth) return 'depth';
      bytes += 1; // the opening bracket; each member adds at least its comma or the closing one
      if (Array.isArray(current)) {
        const children = current as readonly unknown[];
        bytes += Math.max(1, children.length);
        if (bytes > maxBytes) return 'size';
        for (const child of children) stack.push({ value: child, depth: item.depth + 1 });
      } else {
        // Member by member, so a huge object stops at the limit (Object.values of 100,000 members took 0.5 s).
        let members = 0;
        for (const key in current) {
          if (!Object.hasOwn(current, key)) continue;
          bytes += key.length + 3 + (members++ === 0 ? 0 : 1);
          if (bytes > maxBytes) return 'size';
          stack.push({ value: (current as Record<string, unknown>)[key], depth: item.depth + 1 });
        }
        bytes += 1;
      }
    }
    if (bytes > maxBytes) return 'size';
  }
  return null;
}

export function parseMetadata(body: JsonObject, limits: RequestLimits = DEFAULT_LIMITS): Result<Readonly<Record<string, unknown>> | null> {
  const raw = ownField(body, 'metadata');
  if (raw === undefined || raw === null) return ok(null);
  if (!isJsonObject(raw)) return invalid('metadata must be a JSON object');
  const tooLarge = invalid(`metadata must be at most ${limits.maxMetadataBytes} bytes as JSON`);
  const excess = metadataExcess(raw, limits.maxMetadataDepth, limits.maxMetadataBytes);
  if (excess === 'depth') return invalid(`metadata must be nested at most ${limits.maxMetadataDepth} levels deep`);
  if (excess === 'size' || Buffer.byteLength(JSON.stringify(raw)) > limits.maxMetadataBytes) return tooLarge;
  return ok(raw);
}

/** The event fields of an email send; SMS and WhatsApp take only `metadata` and `campaign`. */
export function parseSendOptions(body: JsonObject, channel: 'email' | 'other', limits: RequestLimits = DEFAULT_LIMITS): Result<SendOptionsRequest> {
  const metadata = parseMetadata(body, limits);
  if (!metadata.ok) return metadata;

  const campaignRaw = ownField(body, 'campaign');
  let campaign: string | null = null;
  if (campaignRaw !== undefined && campaignRaw !== null) {
    if (typeof campaignRaw !== 'string' || campaignRaw.trim() === '' || campaignRaw.length > CAMPAIGN_MAX || /\p{Cc}/u.test(campaignRaw)) {
      return invalid(`campaign must be a non-empty string of at most ${CAMPAIGN_MAX} characters`);
    }
    campaign = campaignRaw.trim();
  }
  if (channel === 'other') return ok({ metadata: metadata.value, campaign, certified: false, tracking: {} });

  const certifiedRaw = ownField(body, 'certified');
  if (certifiedRaw !== undefined && certifiedRaw !== null && typeof certifiedRaw !== 'boolean') return invalid('certified must be true or false');
  const certified = certifiedRaw === true;

  const trackingRaw = ownField(body, 'tracking');
  const tracking: { opens?: boolean; clicks?: boolean } = {};
  if (trackingRaw !== undefined && trackingRaw !== null) {
    if (!isJsonObject(trackingRaw)) return invalid('tracking must be an object {opens, clicks}');
    for (const key of ['opens', 'clicks'] as const) {
      const value = ownField(trackingRaw, key);
      if (value === undefined) continue;
      if (typeof value !== 'boolean') return invalid(`tracking.${key} must be true or false`);
      tracking[key] = value;
    }
  }
  return ok({ metadata: metadata.value, campaign, certified, tracking });
}

/**
 * What an email send tracks: only HTML can carry a pixel and rewritten links, and a
 * certified message is never tracked (its evidence is the delivered MIME, untouched
 * by tracking). The request's choice wins over the account's default.
 */
export function effectiveTracking(
  request: SendOptionsRequest,
  accountDefault: { readonly opens: boolean; readonly clicks: boolean },
  hasHtml: boolean,
): { opens: boolean; clicks: boolean } {
  if (!hasHtml || request.certified) return { opens: false, clicks: false };
  return { opens: request.tracking.opens ?? accountDefault.opens, clicks: request.tracking.clicks ?? accountDefault.clicks };
}
