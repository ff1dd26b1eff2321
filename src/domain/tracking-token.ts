import { signedTokens } from './signed-token.ts';

// The tokens in tracking and unsubscribe URLs: compact JWS (HS256) whose payload
// names what the URL does, for which message, and until when, signed and checked by
// domain/signed-token.ts under their own label (the key derived from the installation
// secret), so a token can never pass for an API key or the other way round, and a
// forged or altered token is refused by the signature alone. A click token carries
// its destination: the redirect can only ever go where the signed message linked, and
// only for the tracked-link lifetime (HERALD_TRACKED_LINK_DAYS), counted from its `iat`
// when it is followed, so a shorter setting also shortens links already sent.
//
// Claims, one or two letters to keep URLs short: k kind (o | c | u), a account,
// m msgid, u url (clicks only), iat (clicks only), exp (seconds, JWT).

export const TRACKING_KINDS = ['open', 'click', 'unsubscribe'] as const;
export type TrackingKind = (typeof TRACKING_KINDS)[number];

const DAY_SECONDS = 86_400;

/**
 * How long a token works after the message was composed. An open a year on is noise;
 * an unsubscribe in an archived message should keep working longer, since an expired
 * unsubscribe token leaves only a reply to the sender. A click token's is a setting
 * (TrackingTokenOptions): it makes herald's host a redirect to the sender's URL, which
 * should not outlive the message's campaign by years.
 */
export const TOKEN_LIFETIME_SECONDS: Readonly<Record<Exclude<TrackingKind, 'click'>, number>> = {
  open: 365 * DAY_SECONDS,
  unsubscribe: 730 * DAY_SECONDS,
};

/** HERALD_TRACKED_LINK_DAYS' default: a quarter of a year. */
export const DEFAULT_TRACKED_LINK_DAYS = 90;

/** Every click token signed before `iat` existed lived this long: its issue time is its `exp` less this. */
const LEGACY_CLICK_LIFETIME_SECONDS = 730 * DAY_SECONDS;

export interface TrackingTokenOptions {
  /** How long a click token redirects after it was signed (HERALD_TRACKED_LINK_DAYS). */
  readonly trackedLinkDays: number;
}

/** Longest link herald rewrites; a longer one is left as written (its token would make an unwieldy URL). */
export const MAX_TRACKED_URL_LENGTH = 2048;
/** Longest token verified: a signed click token of the longest URL stays well below it. */
export const MAX_TOKEN_LENGTH = 4096;

export type TrackingClaims =
  | { readonly kind: 'open'; readonly accountId: string; readonly msgid: string }
  | { readonly kind: 'click'; readonly accountId: string; readonly msgid: string; readonly url: string }
  | { readonly kind: 'unsubscribe'; readonly accountId: string; readonly msgid: string };

export type ClaimsOf<K extends TrackingKind> = Extract<TrackingClaims, { readonly kind: K }>;

export interface TrackingTokens {
  /** A token valid from `now` (epoch ms) for the kind's lifetime. */
  sign(claims: TrackingClaims, now: number): Promise<string>;
  /** The claims when `token` is ours, unexpired at `now` and of `kind`; otherwise undefined. */
  verify<K extends TrackingKind>(token: string, kind: K, now: number): Promise<ClaimsOf<K> | undefined>;
}

const KEY_LABEL = 'herald tracking tokens v1';
const CODE: Readonly<Record<TrackingKind, string>> = { open: 'o', click: 'c', unsubscribe: 'u' };

/** An absolute http(s) URL of at most MAX_TRACKED_URL_LENGTH characters: the only kind a click token may carry. */
export function isTrackableUrl(url: string): boolean {
  return url.length <= MAX_TRACKED_URL_LENGTH && /^https?:\/\//i.test(url) && URL.canParse(url);
}

/**
 * The token signer and verifier of an installation secret and tracked-link setting. The
 * key is derived once per secret (domain/signed-token.ts), so compose, which signs for
 * every recipient of every attempt, may ask for this as often as it likes.
 */
export function trackingTokens(
  installationSecret: Uint8Array, options: TrackingTokenOptions = { trackedLinkDays: DEFAULT_TRACKED_LINK_DAYS },
): TrackingTokens {
  const tokens = signedTokens(installationSecret, KEY_LABEL, { maxLength: MAX_TOKEN_LENGTH });
  const clickLifetimeSeconds = options.trackedLinkDays * DAY_SECONDS;

  return {
    async sign(claims, now) {
      if (claims.kind === 'click' && !isTrackableUrl(claims.url)) throw new RangeError('a click token needs an absolute http(s) URL');
      const issued = Math.floor(now / 1000);
      const base = { k: CODE[claims.kind], a: claims.accountId, m: claims.msgid };
      return claims.kind === 'click'
        ? tokens.sign({ ...base, u: claims.url, iat: issued }, issued + clickLifetimeSeconds)
        : tokens.sign(base, issued + TOKEN_LIFETIME_SECONDS[claims.kind]);
    },

    async verify<K extends TrackingKind>(token: string, kind: K, now: number): Promise<ClaimsOf<K> | undefined> {
      const checked = await tokens.verify(token, now);
      if (checked.kind !== 'valid') return undefined;
      const { k, a, m, u, iat, exp } = checked.payload;
      if (k !== CODE[kind] || typeof a !== 'string' || typeof m !== 'string') return undefined;
      let claims: TrackingClaims | undefined;
      if (kind !== 'click') claims = { kind: kind as 'open' | 'unsubscribe', accountId: a, msgid: m };
      // Signed by us, so only ever a URL compose accepted; checked again all the same.
      else if (typeof u === 'string' && isTrackableUrl(u) && clickStillValid(iat, exp, now, clickLifetimeSeconds)) claims = { kind: 'click', accountId: a, msgid: m, url: u };
      return claims as ClaimsOf<K> | undefined;
    },
  };
}

/** Whether a click token signed at `iat` (or, before `iat` was written, `exp` less two years) is within today's lifetime. */
function clickStillValid(iat: unknown, exp: unknown, now: number, lifetimeSeconds: number): boolean {
  const issued = typeof iat === 'number' ? iat : typeof exp === 'number' ? exp - LEGACY_CLICK_LIFETIME_SECONDS : undefined;
  return issued !== undefined && Math.floor(now / 1000) < issued + lifetimeSeconds;
}

/** A message's signed unsubscribe URL (the same token List-Unsubscribe carries): `/u/<token>`. */
export async function unsubscribeLink(
  site: { readonly signingSecret: Uint8Array; readonly publicUrl: string }, accountId: string, msgid: string, now: number,
): Promise<string> {
  const token = await trackingTokens(site.signingSecret).sign({ kind: 'unsubscribe', accountId, msgid }, now);
  return `${site.publicUrl}/u/${token}`;
}
