// A refusal from herald as a typed error: the status, and the interface's error text
// exactly as herald wrote it (`message` of an application error, `error` of an
// authentication error: `Invalid API Key ` keeps its trailing space).

/**
 * Which of the interface's error body shapes the answer had: `application` `{message}`
 * (herald's own may add `detail`), `validation` `{message, error: [{email}]}`,
 * `authentication` `{error}`, `rate_limit` `{success: false, message, error}`, or
 * `unknown` (not JSON, or another shape: a proxy's page).
 */
export type HeraldErrorKind = 'application' | 'validation' | 'authentication' | 'rate_limit' | 'unknown';

export class HeraldError extends Error {
  override readonly name = 'HeraldError';
  /** The HTTP status, e.g. 400, 401, 403, 429. */
  readonly status: number;
  readonly kind: HeraldErrorKind;
  /** herald's `detail` (`<field>: <what is wrong>`) when the answer had one. */
  readonly detail: string | undefined;
  /** A validation error's list of offending values, e.g. `[{email: 'ana@'}]`. */
  readonly offending: ReadonlyArray<Readonly<Record<string, string>>>;
  /** Seconds herald asked to wait (Retry-After on 429 and 503). */
  readonly retryAfterSeconds: number | undefined;
  /** The answer's x-request-id, which herald's log carries too. */
  readonly requestId: string | undefined;
  /** The answer's body: parsed JSON, or the text when it was not JSON. */
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers) {
    const { kind, text } = shapeOf(body, status);
    super(text);
    this.status = status;
    this.kind = kind;
    this.body = body;
    this.detail = isRecord(body) && typeof body.detail === 'string' ? body.detail : undefined;
    this.offending = kind === 'validation' && isRecord(body) && Array.isArray(body.error) ? body.error.filter(isTextRecord) : [];
    const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
    this.retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
    this.requestId = headers.get('x-request-id') ?? undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTextRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}

function shapeOf(body: unknown, status: number): { kind: HeraldErrorKind; text: string } {
  if (isRecord(body)) {
    if (body.success === false && typeof body.message === 'string') return { kind: 'rate_limit', text: body.message };
    if (typeof body.message === 'string') return { kind: Array.isArray(body.error) ? 'validation' : 'application', text: body.message };
    if (typeof body.error === 'string') return { kind: 'authentication', text: body.error };
  }
  const text = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 200) : `herald answered ${status}`;
  return { kind: 'unknown', text };
}
