// Outbound HTTP(S) for operator-untrusted URLs, guarded against server-side request forgery:
// GET for email attachments given by URL, POST for webhook deliveries (guardedPost, below).
//
// - Only http: and https: URLs without credentials.
// - Every address the host resolves to must be public (isPublicAddress) unless the operator
//   allows private addresses (HERALD_FETCH_ALLOW_PRIVATE); one bad address refuses the host.
// - The connection goes to the addresses that were checked: the request gets a `lookup` that
//   answers from the checked list, so a second DNS answer (rebinding) is never consulted. The
//   URL's host name stays the Host header and the TLS server name, so certificates are
//   verified against the real name.
// - Redirects are followed by hand, each hop parsed, resolved and checked again.
// - One time-out covers everything (lookups, connects, redirects, body).
// - Never throws: every failure is a FetchOutcome, `permanent` saying whether a retry can help.

import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface GuardedFetchOptions {
  /** HERALD_FETCH_ALLOW_PRIVATE: skip the address check entirely. */
  readonly allowPrivate: boolean;
  /** Largest body accepted, in bytes. */
  readonly maxBytes: number;
  /** Time allowed for the whole operation, redirects included. */
  readonly timeoutMs: number;
  /** Redirects followed before giving up; default 5. */
  readonly maxRedirects?: number;
  /** Host name resolver; default dns.promises.lookup(host, { all: true, verbatim: true }). */
  readonly lookup?: (hostname: string) => Promise<readonly { address: string; family: 4 | 6 }[]>;
  readonly signal?: AbortSignal;
  /**
   * Sent on every hop, after herald's own (which they cannot replace). A credential here
   * would follow a redirect to another host: give maxRedirects 0 with one.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

export type FetchOutcome =
  | { readonly ok: true; readonly body: Buffer; readonly contentType: string | undefined; readonly finalUrl: string }
  | { readonly ok: false; readonly reason: string; readonly permanent: boolean };

/** GuardedFetchOptions with the address rule given as a predicate instead of allowPrivate. */
export type AddressPolicyOptions = Omit<GuardedFetchOptions, 'allowPrivate'>;

interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
// Only ENOTFOUND means the name does not exist; other resolver and socket errors may pass.
const PERMANENT_ERROR_CODES: ReadonlySet<string> = new Set(['ENOTFOUND']);
// IANA has allocated only 2000::/3 for global unicast; ipaddr.js calls e.g. the deprecated
// IPv4-compatible ::7f00:1 'unicast', so IPv6 must also fall inside this block.
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

// Abort reasons, told apart when the shared signal fires.
const TIMED_OUT = Symbol('timed out');
const CALLER_ABORTED = Symbol('aborted by caller');

/** A failure with its outcome, thrown inside the module and turned into a FetchOutcome. */
class FetchFailure extends Error {
  readonly permanent: boolean;
  constructor(reason: string, permanent: boolean) {
    super(reason);
    this.permanent = permanent;
  }
}

/**
 * True only for a syntactically strict IPv4/IPv6 address that ipaddr.js ranks 'unicast'
 * (IPv4-mapped IPv6 judged as its IPv4 address; IPv6 also inside 2000::/3).
 */
export function isPublicAddress(ip: string): boolean {
  // net.isIP rejects the shorthand forms ('127.1', '0x7f.1') that ipaddr.js would accept.
  if (isIP(ip) === 0) return false;
  try {
    const address = ipaddr.process(ip);
    if (address.range() !== 'unicast') return false;
    return address.kind() === 'ipv4' || address.match(IPV6_GLOBAL_UNICAST, 3);
  } catch {
    return false;
  }
}

/** Fetches `url` with GET, refusing non-public addresses unless options.allowPrivate. */
export function guardedFetch(url: string, options: GuardedFetchOptions): Promise<FetchOutcome> {
  return guardedFetchWithPolicy(url, options, options.allowPrivate ? allowAny : isPublicAddress);
}

/**
 * guardedFetch with the address rule as a predicate over each resolved address. Exists so
 * tests can allow exactly the loopback peer while every other address stays refused.
 */
export async function guardedFetchWithPolicy(
  url: string,
  options: AddressPolicyOptions,
  allowAddress: (address: string) => boolean,
): Promise<FetchOutcome> {
  if (options.signal?.aborted) return { ok: false, reason: 'aborted', permanent: false };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(TIMED_OUT), options.timeoutMs);
  const onCallerAbort = (): void => controller.abort(CALLER_ABORTED);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await fetchFollowingRedirects(url, options, allowAddress, controller.signal);
  } catch (error) {
    return outcomeOf(error, controller.signal, options.timeoutMs);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

function allowAny(): boolean {
  return true;
}

function outcomeOf(error: unknown, signal: AbortSignal, timeoutMs: number): FetchOutcome {
  // Checked first: once aborted, whatever error the torn-down socket raised is a symptom.
  if (signal.aborted) {
    return signal.reason === TIMED_OUT
      ? { ok: false, reason: `timed out after ${timeoutMs} ms`, permanent: false }
      : { ok: false, reason: 'aborted', permanent: false };
  }
  if (error instanceof FetchFailure) return { ok: false, reason: error.message, permanent: error.permanent };
  return { ok: false, reason: `fetch failed: ${describeError(error)}`, permanent: false };
}

async function fetchFollowingRedirects(
  url: string,
  options: AddressPolicyOptions,
  allowAddress: (address: string) => boolean,
  signal: AbortSignal,
): Promise<FetchOutcome> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const lookup = options.lookup ?? defaultLookup;
  let target = parseTarget(url, undefined);
  for (let redirects = 0; ; redirects += 1) {
    const addresses = await resolveChecked(target, lookup, allowAddress, signal);
    const { request, response } = await send(target, addresses, signal, options.headers ?? {});
    try {
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        if (redirects >= maxRedirects) throw new FetchFailure('too many redirects', true);
        const location = response.headers.location;
        if (location === undefined || location === '') {
          throw new FetchFailure(`HTTP ${status} from ${target.href} without a Location header`, true);
        }
        target = parseTarget(location, target);
        continue;
      }
      if (status >= 200 && status <= 299) {
        const body = await readCapped(response, options.maxBytes);
        return { ok: true, body, contentType: response.headers['content-type'], finalUrl: target.href };
      }
      // 429 and 5xx are the server's passing state; other statuses will not change on retry.
      const transient = status === 429 || (status >= 500 && status <= 599);
      throw new FetchFailure(`HTTP ${status} from ${target.href}`, !transient);
    } finally {
      // No keep-alive agent: destroying frees the socket whether or not the body was read.
      response.destroy();
      request.destroy();
    }
  }
}

/** Parses `text` (relative to `base` for a redirect) and refuses what may not be fetched. */
function parseTarget(text: string, base: URL | undefined, verb = 'fetch'): URL {
  let target: URL;
  try {
    target = new URL(text, base);
  } catch {
    throw new FetchFailure(base === undefined ? 'invalid URL' : `invalid redirect location from ${base.href}`, true);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new FetchFailure(`unsupported URL scheme "${target.protocol.slice(0, -1)}"`, true);
  }
  if (target.username !== '' || target.password !== '') {
    throw new FetchFailure(`refused to ${verb} a URL with credentials`, true);
  }
  return target;
}

function defaultLookup(hostname: string): Promise<readonly ResolvedAddress[]> {
  return dnsLookup(hostname, { all: true, verbatim: true }) as Promise<ResolvedAddress[]>;
}

/** The host's addresses (the literal itself for an IP host), every one allowed by the policy. */
async function resolveChecked(
  target: URL,
  lookup: NonNullable<AddressPolicyOptions['lookup']>,
  allowAddress: (address: string) => boolean,
  signal: AbortSignal,
  verb = 'fetch',
): Promise<readonly ResolvedAddress[]> {
  const host = bareHost(target);
  let addresses: readonly { address: string; family: 4 | 6 }[];
  const literalFamily = isIP(host);
  if (literalFamily === 4 || literalFamily === 6) {
    addresses = [{ address: host, family: literalFamily }];
  } else {
    try {
      addresses = await untilAborted(lookup(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const code = errorCode(error);
      throw new FetchFailure(`cannot resolve ${host}: ${describeError(error)}`, code !== undefined && PERMANENT_ERROR_CODES.has(code));
    }
  }
  if (addresses.length === 0) throw new FetchFailure(`cannot resolve ${host}: no addresses`, true);
  const checked: ResolvedAddress[] = [];
  for (const { address } of addresses) {
    // The family is taken from the text, not the resolver, so the pinned lookup cannot lie.
    const family = isIP(address);
    if (family !== 4 && family !== 6) {
      throw new FetchFailure(`cannot resolve ${host}: "${address}" is not an IP address`, true);
    }
    if (!allowAddress(address)) {
      throw new FetchFailure(`refused to ${verb} ${target.hostname}: ${address} is a private or reserved address`, true);
    }
    checked.push({ address, family });
  }
  return checked;
}

/** URL.hostname keeps the brackets of an IPv6 literal; sockets and lookups need it bare. */
function bareHost(target: URL): string {
  const { hostname } = target;
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** A `lookup` for http.request that answers only from the already-checked addresses. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : lookupOptions.family;
    const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    const first = wanted[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no checked IPv${family} address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '');
    } else if (lookupOptions.all === true) {
      callback(null, wanted.map(({ address, family: f }) => ({ address, family: f })));
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/** Sends the GET and resolves on the response head; the caller destroys both when done. */
function send(
  target: URL,
  addresses: readonly ResolvedAddress[],
  signal: AbortSignal,
  extraHeaders: Readonly<Record<string, string>>,
): Promise<{ request: ClientRequest; response: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const host = bareHost(target);
    const isHttps = target.protocol === 'https:';
    const request = (isHttps ? httpsRequest : httpRequest)({
      protocol: target.protocol,
      hostname: host,
      port: target.port === '' ? undefined : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: 'GET',
      headers: {
        ...extraHeaders,
        host: target.host,
        'user-agent': 'herald',
        accept: '*/*',
        // Bodies are stored as received, so ask for them uncompressed.
        'accept-encoding': 'identity',
      },
      lookup: pinnedLookup(addresses),
      // A fresh socket per request: a pooled one might have been opened under another check.
      agent: false,
      // SNI must be a name, never an IP literal.
      ...(isHttps && isIP(host) === 0 ? { servername: host } : {}),
      signal,
    });
    // Kept for the request's whole life: a late socket error must not go unhandled.
    request.on('error', (error) => reject(connectionFailure(target, error)));
    request.once('response', (response) => {
      // The body is read later or not at all; an error in between must not go unhandled.
      response.on('error', () => {});
      resolve({ request, response });
    });
    request.end();
  });
}

function connectionFailure(target: URL, error: unknown): FetchFailure {
  const code = errorCode(error);
  return new FetchFailure(
    `connection to ${target.host} failed: ${describeError(error)}`,
    code !== undefined && PERMANENT_ERROR_CODES.has(code),
  );
}

/** The body, refused as soon as it is known to exceed maxBytes (Content-Length or bytes read). */
async function readCapped(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = (): FetchFailure => new FetchFailure(`attachment larger than ${maxBytes} bytes`, true);
  const declared = response.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof FetchFailure) throw error;
    const code = errorCode(error);
    throw new FetchFailure(`reading the body failed: ${code ?? describeError(error)}`, false);
  }
  return Buffer.concat(chunks, size);
}

/** Settles like `promise`, or rejects with the abort reason first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') return code;
  // With several addresses, Node's connect reports an AggregateError of each attempt.
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return undefined;
}

/** The error code when there is one (stable, short), else the message. */
function describeError(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

// ---- POST with a body (webhook deliveries) ----
//
// The same address rule as GET, with two differences that suit a receiver posted to over
// and over: sockets are kept alive and reused per origin (KeepAliveAgents), and redirects
// are never followed (a 3xx is an answer like any other non-2xx).
//
// Reuse stays safe: a name is resolved and checked when a new socket is opened (the
// request's `lookup` does it), so every pooled socket is connected to an address that
// passed the check; an IP-literal host is checked before every request.

/** Keep-alive pools, one socket pool per origin (Node's Agent keys its pool by host and port). */
export interface KeepAliveAgents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
  /** Closes every pooled socket. */
  destroy(): void;
}

export function keepAliveAgents(maxSocketsPerOrigin: number): KeepAliveAgents {
  // lifo: the most recently used socket is the one least likely to have been closed by the server.
  const http = new HttpAgent({ keepAlive: true, maxSockets: maxSocketsPerOrigin, scheduling: 'lifo' });
  const https = new HttpsAgent({ keepAlive: true, maxSockets: maxSocketsPerOrigin, scheduling: 'lifo' });
  return {
    http,
    https,
    destroy() {
      http.destroy();
      https.destroy();
    },
  };
}

export interface GuardedPostOptions {
  /** HERALD_FETCH_ALLOW_PRIVATE: skip the address check entirely. */
  readonly allowPrivate: boolean;
  /**
   * Time the receiver has, from the moment the request has a socket (a pooled one, or a
   * new one still to be looked up and connected) to the answer's head. Waiting for a
   * free socket of the pool does not count.
   */
  readonly timeoutMs: number;
  /** Sent as given, after `host`, `user-agent` and `content-length`, which they cannot replace. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Reuse sockets; without, a fresh socket per request. */
  readonly agents?: KeepAliveAgents;
  /** Host name resolver; default dns.promises.lookup(host, { all: true, verbatim: true }). */
  readonly lookup?: GuardedFetchOptions['lookup'];
  readonly signal?: AbortSignal;
  /** Bytes of the answer's body kept for `excerpt` (the rest is read and dropped, up to 64 KiB); default 256. */
  readonly excerptBytes?: number;
}

/** What came of a POST: the peer answered (any status), or it could not be reached in time. */
export type PostOutcome =
  | {
    readonly answered: true; readonly status: number; readonly excerpt: string;
    /** The answer's `Retry-After` header as sent, when it has one (webhooks/retry-policy.ts reads it). */
    readonly retryAfter?: string;
  }
  | { readonly answered: false; readonly reason: string; readonly permanent: boolean };

const DEFAULT_EXCERPT_BYTES = 256;
// An answer body larger than this is not read to its end: the socket is dropped instead of reused.
const MAX_DRAINED_BYTES = 64 * 1024;

/** POSTs `options.body` to `url`, refusing non-public addresses unless options.allowPrivate. Never throws. */
export async function guardedPost(url: string, options: GuardedPostOptions): Promise<PostOutcome> {
  if (options.signal?.aborted) return { answered: false, reason: 'aborted', permanent: false };
  const allowAddress = options.allowPrivate ? allowAny : isPublicAddress;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const startClock = (): void => {
    timer ??= setTimeout(() => controller.abort(TIMED_OUT), options.timeoutMs);
  };
  const onCallerAbort = (): void => controller.abort(CALLER_ABORTED);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const target = parseTarget(url, undefined, 'post to');
    const host = bareHost(target);
    let lookup: LookupFunction | undefined;
    if (isIP(host) !== 0) {
      // No look-up happens for a literal, so this is the only check it gets.
      if (!allowAddress(host)) throw new FetchFailure(`refused to post to ${target.hostname}: ${host} is a private or reserved address`, true);
    } else {
      lookup = checkingLookup(target, options.lookup ?? defaultLookup, allowAddress, controller.signal);
    }
    return await sendPost(target, lookup, options, controller.signal, startClock);
  } catch (error) {
    const outcome = outcomeOf(error, controller.signal, options.timeoutMs);
    return outcome.ok ? { answered: false, reason: 'unexpected success', permanent: false } : { answered: false, reason: outcome.reason, permanent: outcome.permanent };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/**
 * Whether `url` may be posted to now: an http(s) URL without credentials whose host's
 * addresses are all public (unless allowPrivate). Resolves the name once, within
 * timeoutMs; a name that does not resolve is refused, since it cannot be checked.
 */
export async function checkPostTarget(
  url: string,
  options: { allowPrivate: boolean; timeoutMs: number; lookup?: GuardedFetchOptions['lookup'] },
): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(TIMED_OUT), options.timeoutMs);
  try {
    const target = parseTarget(url, undefined, 'post to');
    // With every address allowed there is nothing to look up (and a name may not resolve yet).
    if (!options.allowPrivate) await resolveChecked(target, options.lookup ?? defaultLookup, isPublicAddress, controller.signal, 'post to');
    return { ok: true };
  } catch (error) {
    const outcome = outcomeOf(error, controller.signal, options.timeoutMs);
    return { ok: false, reason: outcome.ok ? 'unexpected success' : outcome.reason };
  } finally {
    clearTimeout(timer);
  }
}

/** A `lookup` that resolves and checks the name each time a new socket is opened, then answers from the checked list. */
function checkingLookup(
  target: URL,
  lookup: NonNullable<AddressPolicyOptions['lookup']>,
  allowAddress: (address: string) => boolean,
  signal: AbortSignal,
): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveChecked(target, lookup, allowAddress, signal, 'post to').then(
      (addresses) => pinnedLookup(addresses)(hostname, lookupOptions, callback),
      // The socket fails with this very error, so the refusal's reason reaches the outcome.
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ''),
    );
  };
}

function sendPost(
  target: URL,
  lookup: LookupFunction | undefined,
  options: GuardedPostOptions,
  signal: AbortSignal,
  onSocket: () => void,
): Promise<PostOutcome> {
  return new Promise((resolve, reject) => {
    const host = bareHost(target);
    const isHttps = target.protocol === 'https:';
    const body = Buffer.from(options.body, 'utf8');
    const excerptBytes = options.excerptBytes ?? DEFAULT_EXCERPT_BYTES;
    const request = (isHttps ? httpsRequest : httpRequest)({
      protocol: target.protocol,
      hostname: host,
      port: target.port === '' ? undefined : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: { ...options.headers, host: target.host, 'user-agent': 'herald', 'content-length': String(body.length) },
      ...(lookup === undefined ? {} : { lookup }),
      agent: options.agents === undefined ? false : isHttps ? options.agents.https : options.agents.http,
      ...(isHttps && isIP(host) === 0 ? { servername: host } : {}),
      signal,
    });
    request.once('socket', onSocket);
    // Set once the answer's head is in: from then on the status stands, whatever befalls the body.
    let answered: (() => void) | undefined;
    request.on('error', (error) => {
      if (answered !== undefined) answered();
      else reject(error instanceof FetchFailure ? error : connectionFailure(target, error));
    });
    request.once('response', (response) => {
      // The status is the answer; the body is read to its end so the socket can be reused.
      const status = response.statusCode ?? 0;
      const retryAfter = response.headers['retry-after'];
      const kept: Buffer[] = [];
      let size = 0;
      answered = (): void => {
        const excerpt = Buffer.concat(kept).subarray(0, excerptBytes).toString('utf8');
        resolve({ answered: true, status, excerpt, ...(retryAfter === undefined ? {} : { retryAfter }) });
      };
      response.on('data', (chunk: Buffer) => {
        if (size < excerptBytes) kept.push(chunk);
        size += chunk.length;
        if (size > MAX_DRAINED_BYTES) response.destroy();
      });
      response.on('end', answered);
      // Cut short (too long, reset, time-out): the status still stands.
      response.on('close', answered);
      response.on('error', () => {});
    });
    request.end(body);
  });
}
