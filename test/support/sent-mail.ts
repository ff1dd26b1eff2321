// What a recipient of a captured email can follow: the message as sent (read back
// through GET /v1/messages/:msgid/raw and parsed with mailparser), and the tracking
// and unsubscribe URLs in it, as paths to inject into the service.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Service } from '../../src/service.ts';
import { emailBody, get, openAccount, post, startService, type TestAccount } from './service.ts';

export const PUBLIC_URL = 'https://herald.example.com';
export const T0 = Date.parse('2030-01-01T09:00:00.000Z');
export const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const READER_IP = '203.0.113.9';

export const LINKS_HTML = '<html><body><p>Hi Ana, <a href="https://shop.example.com/july?utm=mail&amp;id=7">see July</a> '
  + 'or <a href="https://shop.example.com/help">get help</a> or <a href="mailto:help@example.com">write</a>.</p></body></html>';

export interface TrackingWorld {
  readonly service: Service;
  readonly account: TestAccount;
  /** The service's clock; move `now` to pass time. */
  readonly clock: { now: number };
}

/** A service on a clock standing at T0, with HERALD_PUBLIC_URL set (and `env`), and an account. */
export async function trackingWorld(t: TestContext, env: Record<string, string> = {}): Promise<TrackingWorld> {
  const clock = { now: T0 };
  const service = await startService(t, { clock: () => clock.now, env: { HERALD_PUBLIC_URL: PUBLIC_URL, ...env } });
  const account = await openAccount(service);
  return { service, account, clock };
}

/** Sends one email (LINKS_HTML unless overridden) and has it delivered one second later; its msgid. */
export async function sendAndDeliver(world: TrackingWorld, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody({ body: LINKS_HTML, ...overrides }));
  assert.equal(res.statusCode, 200, res.body);
  const msgid: string = res.json().to[0].msgid;
  world.clock.now += 1000;
  await world.service.worker.drain();
  return msgid;
}

export interface SentMail {
  readonly raw: string;
  readonly parsed: ParsedMail;
  readonly html: string;
  /** Path of the open pixel, if there is one. */
  readonly pixel: string | undefined;
  /** Paths of the rewritten links, in document order. */
  readonly clicks: string[];
  /** Path of the List-Unsubscribe URL. */
  readonly unsubscribe: string;
}

const pathOf = (url: string): string => {
  assert.ok(url.startsWith(`${PUBLIC_URL}/`), url);
  return url.slice(PUBLIC_URL.length);
};

/** The message as the capture transport stored it, with the URLs a recipient could follow. */
export async function sentMail(world: TrackingWorld, msgid: string): Promise<SentMail> {
  const res = await get(world.service, `/v1/messages/${msgid}/raw`, world.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  const parsed = await simpleParser(res.body);
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  const pixel = /<img src="([^"]+\/t\/o\/[^"]+)"/.exec(html)?.[1];
  const clicks = [...html.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) => pathOf(m[1] ?? ''));
  // mailparser gathers the List-* headers under `list`: {unsubscribe: {url}, 'unsubscribe-post': {name}}.
  const list = parsed.headers.get('list') as { unsubscribe?: { url?: string } } | undefined;
  return { raw: res.body, parsed, html, pixel: pixel === undefined ? undefined : pathOf(pixel), clicks, unsubscribe: pathOf(list?.unsubscribe?.url ?? '') };
}

/** A recipient's request: from READER_IP with a desktop Chrome unless told otherwise. */
export function visit(
  world: TrackingWorld,
  method: 'GET' | 'HEAD' | 'POST',
  path: string,
  options: { userAgent?: string | null; ip?: string; headers?: Record<string, string>; payload?: string | Buffer } = {},
): Promise<LightMyRequestResponse> {
  const userAgent = options.userAgent === undefined ? CHROME : options.userAgent;
  return world.service.http.inject({
    method, url: path, remoteAddress: options.ip ?? READER_IP,
    headers: { ...(userAgent === null ? {} : { 'user-agent': userAgent }), ...options.headers },
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  });
}

/** The message's events as GET /v1/messages/:msgid shows them. */
export async function eventsOf(world: TrackingWorld, msgid: string): Promise<Record<string, unknown>[]> {
  const res = await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().events;
}

/** Only the events a recipient's actions add (opened, clicked, unsubscribed). */
export async function engagementsOf(world: TrackingWorld, msgid: string): Promise<Record<string, unknown>[]> {
  return (await eventsOf(world, msgid)).filter((e) => ['opened', 'clicked', 'unsubscribed'].includes(String(e['type'])));
}

export const iso = (ms: number): string => new Date(ms).toISOString();
