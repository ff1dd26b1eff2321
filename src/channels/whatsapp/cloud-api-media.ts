import { createHash } from 'node:crypto';
import { isJsonObject, ownField } from '../../domain/json-object.ts';
import { guardedFetchWithPolicy, type GuardedFetchOptions } from '../guarded-fetch.ts';

// A WhatsApp user's media, fetched from Meta in two steps, each with the account's
// token: `GET {graph}/{media-id}` answers `{url, mime_type, sha256, file_size}`, then
// `GET {url}` answers the bytes (the URL is good for five minutes, the media id for
// thirty days, so every attempt starts again from the id). Both go through
// channels/guarded-fetch.ts without redirects, which would carry the token elsewhere.

export interface CloudApiMediaOptions {
  /** The Graph API root with its version, as the transport's (`https://graph.facebook.com/v23.0`): the operator's, so any address. */
  readonly baseUrl: string;
  /** HERALD_INBOUND_MEDIA_MAX_BYTES: a larger file fails for good, unread. */
  readonly maxBytes: number;
  /** Each of the two requests. */
  readonly timeoutMs: number;
  /** Whether the media URL's addresses may be reached (public only, unless HERALD_FETCH_ALLOW_PRIVATE; tests allow their loopback peer). */
  readonly allowAddress: (address: string) => boolean;
  readonly lookup?: GuardedFetchOptions['lookup'];
}

export type MediaFetched =
  | { readonly ok: true; readonly body: Buffer; readonly contentType: string | null }
  | { readonly ok: false; readonly reason: string; readonly permanent: boolean };

export const MEDIA_TIMEOUT_MS = 60_000;
// Meta's metadata answer is a few hundred bytes.
const METADATA_MAX_BYTES = 64 * 1024;

const allowAny = (): boolean => true;

/** The bytes of media `mediaId`, or why not (`permanent`: no retry can help). Never throws; the token never appears in a reason. */
export async function fetchCloudApiMedia(mediaId: string, accessToken: string, options: CloudApiMediaOptions): Promise<MediaFetched> {
  const result = await fetchMedia(mediaId, accessToken, options);
  return result.ok ? result : { ...result, reason: result.reason.replaceAll(accessToken, '[redacted]') };
}

async function fetchMedia(mediaId: string, accessToken: string, options: CloudApiMediaOptions): Promise<MediaFetched> {
  const common = { timeoutMs: options.timeoutMs, maxRedirects: 0, headers: { authorization: `Bearer ${accessToken}` }, ...(options.lookup ? { lookup: options.lookup } : {}) };
  const metadataUrl = `${options.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(mediaId)}`;
  const answer = await guardedFetchWithPolicy(metadataUrl, { ...common, maxBytes: METADATA_MAX_BYTES }, allowAny);
  if (!answer.ok) return { ok: false, reason: `media ${mediaId}: ${answer.reason}`, permanent: answer.permanent };

  let metadata: unknown;
  try {
    metadata = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return { ok: false, reason: `media ${mediaId}: the Graph API's answer is not JSON`, permanent: false };
  }
  const url = isJsonObject(metadata) ? ownField(metadata, 'url') : undefined;
  if (!isJsonObject(metadata) || typeof url !== 'string') return { ok: false, reason: `media ${mediaId}: the Graph API's answer has no url`, permanent: false };
  const declaredSize = ownField(metadata, 'file_size');
  const size = typeof declaredSize === 'number' ? declaredSize : typeof declaredSize === 'string' && /^[0-9]{1,15}$/.test(declaredSize) ? Number(declaredSize) : undefined;
  if (size !== undefined && size > options.maxBytes) {
    return { ok: false, reason: `media ${mediaId}: ${size} bytes, larger than the ${options.maxBytes} allowed`, permanent: true };
  }

  const media = await guardedFetchWithPolicy(url, { ...common, maxBytes: options.maxBytes }, options.allowAddress);
  if (!media.ok) return { ok: false, reason: `media ${mediaId}: ${media.reason}`, permanent: media.permanent };
  const sha256 = ownField(metadata, 'sha256');
  if (typeof sha256 === 'string' && sha256 !== '' && !sameDigest(media.body, sha256)) {
    // A transfer cut or changed on the way: the next attempt fetches it again.
    return { ok: false, reason: `media ${mediaId}: the bytes do not match Meta's sha256`, permanent: false };
  }
  const mimeType = ownField(metadata, 'mime_type');
  return { ok: true, body: media.body, contentType: typeof mimeType === 'string' && mimeType !== '' ? mimeType.slice(0, 255) : (media.contentType ?? null) };
}

/** Meta gives the digest in hex on the media's metadata and in base64 on the webhook: either is accepted. */
function sameDigest(body: Buffer, expected: string): boolean {
  const digest = createHash('sha256').update(body).digest();
  return expected.toLowerCase() === digest.toString('hex') || expected === digest.toString('base64');
}
