// The one way pages talk to herald: same-origin JSON with the session cookie, the
// CSRF token on every state change, and errors as ApiError carrying herald's own text.

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

export const SESSION_EXPIRED = 'Session expired, sign in again';
/** The interface's 403 for an address outside the account's allow-list (its trailing space included). */
export const IP_NOT_ALLOWED = 'IP Not Allowed ';

const csrf: Record<Realm, string | undefined> = { account: undefined, operator: undefined };
export function setCsrfToken(realm: Realm, token: string | undefined): void {
  csrf[realm] = token;
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
  /** Don't treat a 401 as the end of the session (sign-in forms: a wrong password is a 401 too). */
  readonly quiet401?: boolean;
}

function errorText(body: unknown, status: number): { message: string; detail: string | undefined } {
  if (typeof body === 'object' && body !== null) {
    const record = body as Record<string, unknown>;
    const message = typeof record.message === 'string' ? record.message : typeof record.error === 'string' ? record.error : undefined;
    const detail = typeof record.detail === 'string' ? record.detail : undefined;
    if (message !== undefined) return { message, detail };
  }
  return { message: `herald answered ${status}`, detail: undefined };
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
    throw new ApiError(0, 'herald cannot be reached; check your connection and try again', undefined, undefined);
  }
  if (response.ok) return response;
  const text = await response.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch { /* not JSON: keep the text */ }
  const { message, detail } = errorText(body, response.status);
  const error = new ApiError(response.status, message, detail, body);
  const expired = response.status === 401 && (realm === 'operator' || message === SESSION_EXPIRED);
  if (expired && options.quiet401 !== true) for (const listener of expiryListeners) listener(realm);
  throw error;
}

/** A JSON request; 204 resolves to undefined. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}
