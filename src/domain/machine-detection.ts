import { isIpAllowed, parseAllowList, type AllowList } from './ip-allow-list.ts';

// Whether an open or a click came from a person or from software acting before, or
// instead of, one: Apple Mail Privacy Protection fetches every image when the message
// arrives; security gateways and link checkers fetch every link, often within a
// second of delivery and before the recipient sees the message. Such events are still
// recorded (the fetch happened) but carry `machine: true` and why, so counts of
// people can leave them out. The rules, first match wins:
//
//   head-request        a HEAD request: browsers and mail clients GET, checkers HEAD
//   no-user-agent       no User-Agent at all: every browser and mail client sends one
//   apple-mail-privacy  User-Agent exactly `Mozilla/5.0` (Apple's proxy sends that and
//                       nothing else; no browser does), or an open from Apple's own
//                       17.0.0.0/8, where its image proxy fetches from
//   security-scanner    a User-Agent naming a mail security gateway or link checker
//   bot                 a User-Agent of a crawler, link expander or HTTP library
//   before-delivery     no delivery was recorded yet: a gateway scanning the message
//                       while it was being accepted
//   quick               within 1 second of the delivery (a person needs longer to see,
//                       open and click)
//   link-burst          a click on another link of the same message less than 1 second
//                       before or after this one
//
// Gmail and Yahoo fetch images through their own proxies (GoogleImageProxy,
// YahooMailProxy) when the person opens the message: a real open, recorded with
// `machine: false` and `proxy` naming the proxy; its IP is the proxy's, not the
// reader's, and the proxy caches the image, so later opens of that copy are not seen.

export type MachineReason =
  | 'head-request' | 'no-user-agent' | 'apple-mail-privacy' | 'security-scanner' | 'bot' | 'before-delivery' | 'quick' | 'link-burst';

export interface EngagementHit {
  readonly kind: 'open' | 'click';
  readonly method: string;
  readonly ip: string;
  readonly userAgent: string | undefined;
  readonly at: number;
  /** The clicked URL (clicks only). */
  readonly url?: string;
}

export interface EngagementHistory {
  /** When the message was last handed over (its latest `sent` or `delivered` event); undefined: not yet. */
  readonly deliveredAt: number | undefined;
  /** The clicks already recorded for the message. */
  readonly clicks: readonly { readonly url: string; readonly at: number }[];
}

export type Verdict =
  | { readonly machine: true; readonly reason: MachineReason }
  | { readonly machine: false; readonly proxy?: 'google' | 'yahoo' };

/** A person needs more than this to see a message, open it and click. */
export const QUICK_MS = 1000;

// Apple's 17.0.0.0/8, where its Mail Privacy Protection image proxy fetches from.
const APPLE: AllowList = (() => {
  const list = parseAllowList(['17.0.0.0/8']);
  if (!list.ok) throw new Error('Apple range does not parse');
  return list.value;
})();

// Mail security gateways and link checkers that name themselves. Microsoft Safe Links
// and Defender mostly fetch with an ordinary browser User-Agent: the timing rules catch them.
const SCANNERS = /proofpoint|mimecast|barracuda|ironport|sophos|symantec|forcepoint|fortiguard|trend ?micro|zscaler|safelinks|bingpreview|existence discovery|ms-office|msoffice|urlscan|virustotal/i;

// Crawlers and link expanders (`…bot`, `…Bot/2.1`), headless browsers, HTTP libraries and command-line tools.
const BOTS = /bot\b|bot\/|crawler|spider|preview|headlesschrome|phantomjs|facebookexternalhit|whatsapp|curl\/|wget\/|python-requests|python-urllib|aiohttp|go-http-client|java\/|okhttp|apache-httpclient|libwww-perl|node-fetch|undici|axios\//i;

const PROXIES: readonly { readonly pattern: RegExp; readonly name: 'google' | 'yahoo' }[] = [
  { pattern: /GoogleImageProxy/i, name: 'google' },
  { pattern: /YahooMailProxy/i, name: 'yahoo' },
];

export function classifyEngagement(hit: EngagementHit, history: EngagementHistory): Verdict {
  const machine = (reason: MachineReason): Verdict => ({ machine: true, reason });
  const ua = hit.userAgent?.trim() ?? '';

  if (hit.method === 'HEAD') return machine('head-request');
  if (ua === '') return machine('no-user-agent');
  if (ua === 'Mozilla/5.0' || (hit.kind === 'open' && isIpAllowed(APPLE, hit.ip))) return machine('apple-mail-privacy');
  if (SCANNERS.test(ua)) return machine('security-scanner');
  const proxy = hit.kind === 'open' ? PROXIES.find((p) => p.pattern.test(ua))?.name : undefined;
  if (proxy === undefined && BOTS.test(ua)) return machine('bot');
  if (history.deliveredAt === undefined) return machine('before-delivery');
  if (hit.at - history.deliveredAt < QUICK_MS) return machine('quick');
  if (hit.kind === 'click' && history.clicks.some((c) => c.url !== hit.url && Math.abs(hit.at - c.at) < QUICK_MS)) return machine('link-burst');
  return proxy === undefined ? { machine: false } : { machine: false, proxy };
}
