// The one way pages talk to herald: same-origin JSON with the session cookie, the
// CSRF token on every state change, and errors as ApiError carrying herald's own text.
// The global instance that web/src/i18n/i18n.ts sets up (imported bare: this module is DOM-free for tests).
import i18next from 'i18next';

export type Realm = 'account' | 'operator';

/** herald's answer to a request it refused: the status and its `message` (or `error`) text. */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string | undefined;
  readonly body: unknown;
  constructor(status: number, message: string, detail: string | undefined, body: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.body = body;
  }
}

/** The status a 409 names (herald's answer to a move the thing's status no longer allows: a campaign's, a scheduled message's). */
export function conflictStatus(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 409) return undefined;
  const status = (error.body as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' ? status : undefined;
}

export const SESSION_EXPIRED = 'Session expired, sign in again';
/** The interface's 403 for a request with no credentials: the session cookie is gone (signed out in another tab). */
export const NO_API_KEY = 'No API Key sent';
const INVALID_API_KEY = 'Invalid API Key ';
/** The interface's 403 for an address outside the account's allow-list (its trailing space included). */
export const IP_NOT_ALLOWED = 'IP Not Allowed ';

const CSRF_REFUSED = 'CSRF token missing or invalid';
const csrf: Record<Realm, string | undefined> = { account: undefined, operator: undefined };
// Whose session the tab's token is (the user's id; the console has no users).
const holder: Record<Realm, string | undefined> = { account: undefined, operator: undefined };
export function setCsrfToken(realm: Realm, token: string | undefined, holderId?: string): void {
  csrf[realm] = token;
  holder[realm] = holderId;
}

const SESSION_PATH: Record<Realm, string> = { account: '/v1/session', operator: '/admin/v1/session' };
/**
 * After a sign-in in another tab the cookie is a newer session's, so this tab's CSRF token
 * is refused. The newer session's token is taken when the same person holds it (the
 * refused change is then sent again: herald refused it before reading it); otherwise this
 * tab's session is over.
 */
async function renewCsrf(realm: Realm): Promise<boolean> {
  try {
    const response = await fetch(SESSION_PATH[realm], { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    if (!response.ok) return false;
    const session = (await response.json()) as { csrf_token?: unknown; user?: { user_id?: unknown } };
    const holderId = realm === 'account' ? session.user?.user_id : undefined;
    if (typeof session.csrf_token !== 'string' || holderId !== holder[realm]) return false;
    csrf[realm] = session.csrf_token;
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether herald's refusal means the realm's session is over. The web application sends no
 * key, so on /v1 the answers for "no valid credentials" all mean that: the ended session's
 * 401, and the 403s of a request whose cookie is gone (signed out in another tab, or the
 * browser dropped it). herald's other 401s on /v1 (`Insufficient balance`, `No messages
 * left…`) are refusals of one action, not of the session. The operator API's only 401 is
 * its missing-or-wrong credentials.
 */
export function endsSession(realm: Realm, status: number, message: string): boolean {
  if (realm === 'operator') return status === 401;
  return (status === 401 && message === SESSION_EXPIRED) || (status === 403 && (message === NO_API_KEY || message === INVALID_API_KEY));
}

// Whether this tab saw its session end since it last had one: the shell then sends the user
// to sign in with the "session ended" notice, and pages keep their drafts.
const ended: Record<Realm, boolean> = { account: false, operator: false };
/** Whether herald said the realm's session is over since this tab last had one. */
export function sessionEnded(realm: Realm): boolean {
  return ended[realm];
}
/** Records the end of the realm's session (or, with false, that the tab has one again). */
export function markSessionEnded(realm: Realm, value = true): void {
  ended[realm] = value;
}

type ExpiryListener = (realm: Realm) => void;
const expiryListeners = new Set<ExpiryListener>();
/** Called when herald says a session is over, so the shell can send the user to sign in and back. */
export function onSessionExpired(listener: ExpiryListener): () => void {
  expiryListeners.add(listener);
  return () => void expiryListeners.delete(listener);
}

export type Query = Record<string, string | number | undefined | null>;

export function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly body?: unknown;
  /** A body sent as it is (a CSV text, or a file streamed from disk) with its media type, instead of JSON. */
  readonly text?: { readonly body: string | Blob; readonly type: string };
  readonly query?: Query;
  readonly realm?: Realm;
  /** Don't tell the shell when the answer ends the session (sign-in forms, and the session's own look-up, which says so itself). */
  readonly quiet401?: boolean;
  /** Sent again with a renewed CSRF token: not renewed twice. */
  readonly renewed?: boolean;
}

function errorText(body: unknown, status: number): { message: string; detail: string | undefined } {
  if (typeof body === 'object' && body !== null) {
    const record = body as Record<string, unknown>;
    const message = typeof record.message === 'string' ? record.message : typeof record.error === 'string' ? record.error : undefined;
    const detail = typeof record.detail === 'string' ? record.detail : undefined;
    if (message !== undefined) return { message, detail };
  }
  return { message: i18next.t('session:error.status', { status }), detail: undefined };
}

/** A raw same-origin request (text bodies such as raw MIME and CSV go through here). */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const method = options.method ?? 'GET';
  const realm = options.realm ?? 'account';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.text !== undefined) headers['content-type'] = options.text.type;
  const token = csrf[realm];
  if (method !== 'GET' && token !== undefined) headers['x-csrf-token'] = token;
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method, headers, credentials: 'same-origin',
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.text === undefined ? {} : { body: options.text.body }),
    });
  } catch {
    // Status 0: no answer at all. Pages show it in their own language (ErrorNotice).
    throw new ApiError(0, 'herald cannot be reached; check your connection and try again', undefined, undefined);
  }
  if (response.ok) return response;
  const text = await response.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch { /* not JSON: keep the text */ }
  const { message, detail } = errorText(body, response.status);
  const error = new ApiError(response.status, message, detail, body);
  const staleCsrf = response.status === 403 && message === CSRF_REFUSED && options.renewed !== true;
  if (staleCsrf && await renewCsrf(realm)) return send(path, { ...options, renewed: true });
  if (staleCsrf || endsSession(realm, response.status, message)) {
    // An expired session is an end even when looked up quietly (a tab opened after it); an
    // absent cookie on the look-up is just no session.
    if (options.quiet401 !== true || message === SESSION_EXPIRED || staleCsrf) markSessionEnded(realm);
    if (options.quiet401 !== true) for (const listener of expiryListeners) listener(realm);
  }
  throw error;
}

/** A JSON request; 204 resolves to undefined. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}
