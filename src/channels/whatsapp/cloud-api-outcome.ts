import type { Outcome } from '../channel.ts';

// What a Cloud API answer means for the message, as tables: the Meta error code
// decides first (Meta reports some rate limits as HTTP 400), then the HTTP status.
//
//   accepted  Meta took the message (2xx); its wamid matches the later status webhooks.
//   retry     try again later (rate limits, 5xx, no answer): outcome `deferred`.
//   refused   Meta saw the message and refused it (a bad parameter, an unknown
//             recipient): `failed`, not refunded, like an SMTP 5xx from a relay.
//   not-sent  Meta refused herald's own set-up (credentials, phone number id, a
//             redirect from a wrong base URL): the message never reached WhatsApp,
//             `failed` and refunded, like missing credentials.

export type CloudApiVerdict = 'accepted' | 'retry' | 'refused' | 'not-sent';

/** What came back from one POST: an HTTP answer, or none at all. */
export type CloudApiReply =
  | { readonly kind: 'http'; readonly status: number; readonly body: string }
  | { readonly kind: 'no-answer'; readonly reason: string };

/** Keyed `code` or `code/subcode` (the more specific key wins). */
export const META_ERROR_VERDICTS: Readonly<Record<string, CloudApiVerdict>> = {
  '1': 'retry', // API Unknown (transient on Meta's side)
  '2': 'retry', // API Service: temporarily unavailable
  '4': 'retry', // API Too Many Calls: the app's rate limit
  '80007': 'retry', // the business account's rate limit
  '130429': 'retry', // throughput rate limit hit
  '131000': 'retry', // Something went wrong
  '131056': 'retry', // pair rate limit: too many messages to this recipient
  '133004': 'retry', // server temporarily unavailable
  '190': 'not-sent', // access token expired or invalid
  '10': 'not-sent', // permission denied
  '100/33': 'not-sent', // the phone number id does not exist or is not ours
};

/** First matching range wins. */
export const HTTP_STATUS_VERDICTS: readonly { readonly from: number; readonly to: number; readonly verdict: CloudApiVerdict }[] = [
  { from: 200, to: 299, verdict: 'accepted' },
  { from: 300, to: 399, verdict: 'not-sent' }, // redirects are not followed: the token must not travel elsewhere
  { from: 401, to: 401, verdict: 'not-sent' },
  { from: 403, to: 403, verdict: 'not-sent' },
  { from: 408, to: 408, verdict: 'retry' },
  { from: 429, to: 429, verdict: 'retry' },
  { from: 400, to: 499, verdict: 'refused' },
  { from: 500, to: 599, verdict: 'retry' },
];

const RESPONSE_MAX = 1000;

interface MetaError {
  readonly code: number | undefined;
  readonly subcode: number | undefined;
  readonly message: string | undefined;
  readonly details: string | undefined;
}

/** The JSON of an answer, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** `{ error: { message, code, error_subcode, error_data: { details } } }`, Meta's Graph API error body. */
function metaError(body: unknown): MetaError | undefined {
  const error = record(record(body)?.error);
  if (!error) return undefined;
  return { code: num(error.code), subcode: num(error.error_subcode), message: str(error.message), details: str(record(error.error_data)?.details) };
}

/** The wamid of `{ messages: [{ id: 'wamid…' }] }`. */
function messageId(body: unknown): string | undefined {
  const messages = record(body)?.messages;
  return Array.isArray(messages) ? str(record(messages[0])?.id) : undefined;
}

function verdictOf(status: number, error: MetaError | undefined): CloudApiVerdict {
  if (error?.code !== undefined) {
    const specific = error.subcode === undefined ? undefined : META_ERROR_VERDICTS[`${error.code}/${error.subcode}`];
    const general = META_ERROR_VERDICTS[String(error.code)];
    const byCode = specific ?? general;
    if (byCode !== undefined && status >= 300) return byCode;
  }
  // An unforeseen status (1xx, 6xx…) is treated as no answer.
  return HTTP_STATUS_VERDICTS.find((range) => status >= range.from && status <= range.to)?.verdict ?? 'retry';
}

function describe(status: number, error: MetaError | undefined, rawBody: string): string {
  if (error) {
    const code = error.code === undefined ? '' : ` error ${error.code}${error.subcode === undefined ? '' : `/${error.subcode}`}`;
    const details = error.details === undefined ? '' : ` (${error.details})`;
    return `HTTP ${status}${code}: ${error.message ?? 'no message'}${details}`;
  }
  const text = rawBody.replace(/\s+/g, ' ').trim();
  return text === '' ? `HTTP ${status}` : `HTTP ${status}: ${text}`;
}

const clip = (text: string): string => (text.length > RESPONSE_MAX ? `${text.slice(0, RESPONSE_MAX - 1)}…` : text);

/** Turns one Cloud API answer into the transport's Outcome. */
export function cloudApiOutcome(reply: CloudApiReply, peer: string): Outcome {
  if (reply.kind === 'no-answer') return { kind: 'deferred', peer, response: clip(reply.reason) };
  const body = parseJson(reply.body);
  const error = reply.status >= 300 ? metaError(body) : undefined;
  const verdict = verdictOf(reply.status, error);
  switch (verdict) {
    case 'accepted': {
      const wamid = messageId(body);
      // Meta took it: retrying could send it twice. Without a wamid its later
      // statuses cannot be matched, which the response says.
      return wamid === undefined
        ? { kind: 'accepted', peer, response: clip(`HTTP ${reply.status} without a message id`) }
        : { kind: 'accepted', peer, response: clip(`HTTP ${reply.status} ${wamid}`), providerRef: wamid };
    }
    case 'retry':
      return { kind: 'deferred', peer, response: clip(describe(reply.status, error, reply.body)) };
    case 'refused':
      return { kind: 'failed', peer, response: clip(describe(reply.status, error, reply.body)), leftTheHouse: true };
    case 'not-sent':
      return { kind: 'failed', peer, response: clip(describe(reply.status, error, reply.body)), leftTheHouse: false };
  }
}
