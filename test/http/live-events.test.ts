// GET /v1/events/stream over a real socket: what a signed-in user's open page receives,
// and the stream's bounds. The feed's turns are driven by hand (a poll of an hour).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { LiveFeedOptions } from '../../src/app/live-feed.ts';
import { emailBody, openAccount, post, sharedStore, startServiceOn } from '../support/service.ts';
import { asUser, signedInUser, T0, usersWorld, type BrowserSession, type UsersWorld } from '../support/users.ts';

const MANUAL = { pollMs: 3_600_000 };

/** One open stream: its blocks (`data: …`, `event: …`, `:` comments) as they arrive. */
interface Stream {
  readonly status: number;
  readonly contentType: string | null;
  /** The next block that is not the opening `retry:`; undefined when the stream ended. */
  next(): Promise<string | undefined>;
  close(): void;
}

async function listening(world: UsersWorld): Promise<string> {
  await world.service.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = world.service.http.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

async function openStream(t: TestContext, base: string, session: BrowserSession): Promise<Stream> {
  const abort = new AbortController();
  t.after(() => abort.abort());
  const res = await fetch(`${base}/v1/events/stream`, { headers: { cookie: `herald_session=${session.cookie}` }, signal: abort.signal });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const next = async (): Promise<string | undefined> => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (block.startsWith('retry:')) continue;
        return block;
      }
      const chunk = await reader?.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk === undefined || chunk.done) return undefined;
      buffered += decoder.decode(chunk.value, { stream: true });
    }
  };
  return { status: res.status, contentType: res.headers.get('content-type'), next, close: () => abort.abort() };
}

async function world(t: TestContext, options: Partial<LiveFeedOptions> = {}) {
  const w = await usersWorld(t, { liveFeedOptions: { ...MANUAL, ...options } });
  const base = await listening(w);
  const feed = w.service.liveFeed;
  assert.ok(feed !== undefined);
  return { ...w, base, feed };
}

const dataOf = (block: string | undefined): Record<string, unknown> => {
  assert.ok(block?.startsWith('data: '), block);
  return JSON.parse((block ?? '').slice('data: '.length)) as Record<string, unknown>;
};

test('a signed-in user\'s stream answers 200 as text/event-stream', async (t) => {
  const w = await world(t);
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const stream = await openStream(t, w.base, ana);
  assert.equal(stream.status, 200);
  assert.equal(stream.contentType, 'text/event-stream; charset=utf-8');
});

test('a message sent by API reaches the open stream as message.created with its ids and status, and no content', async (t) => {
  const w = await world(t);
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const stream = await openStream(t, w.base, ana);
  await w.feed.turn();
  const sent = await post(w.service, '/v1/email', w.account.apiKey, emailBody());
  assert.equal(sent.statusCode, 200, sent.body);
  const messageId = sent.json().to[0].msgid as string;
  await w.feed.turn();
  assert.deepStrictEqual(dataOf(await stream.next()), {
    type: 'message.created', at: new Date(w.clock.now).toISOString(), message_id: messageId, channel: 'email', status: 'queued', campaign_id: null,
  });
});

test('one account\'s stream never carries another account\'s events', async (t) => {
  const w = await world(t);
  const other = await openAccount(w.service, { name: 'globex' });
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const bob = await signedInUser(w, 'bob@example.org', 'viewer', other.id);
  const anas = await openStream(t, w.base, ana);
  const bobs = await openStream(t, w.base, bob);
  await w.feed.turn();
  const globexSend = await post(w.service, '/v1/email', other.apiKey, emailBody());
  await w.feed.turn();
  const acmeSend = await post(w.service, '/v1/email', w.account.apiKey, emailBody());
  await w.feed.turn();
  assert.equal(dataOf(await anas.next())['message_id'], acmeSend.json().to[0].msgid);
  assert.equal(dataOf(await bobs.next())['message_id'], globexSend.json().to[0].msgid);
});

test('a user past their streams is refused with 429 and herald\'s message, and the others stay open', async (t) => {
  const w = await world(t, { perUser: 2 });
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const first = await openStream(t, w.base, ana);
  await openStream(t, w.base, ana);
  const res = await fetch(`${w.base}/v1/events/stream`, { headers: { cookie: `herald_session=${ana.cookie}` } });
  assert.equal(res.status, 429);
  assert.deepStrictEqual(await res.json(), { message: 'Too many live update streams open, close one or try again later' });
  assert.equal(w.feed.size, 2);
  assert.equal(first.status, 200);
});

test('another user of the account still opens a stream when one user has used theirs', async (t) => {
  const w = await world(t, { perUser: 1 });
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const eve = await signedInUser(w, 'eve@example.org', 'viewer');
  await openStream(t, w.base, ana);
  assert.equal((await openStream(t, w.base, eve)).status, 200);
});

test('past the process\'s streams any user is refused with 429', async (t) => {
  const w = await world(t, { perProcess: 1 });
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const eve = await signedInUser(w, 'eve@example.org', 'viewer');
  await openStream(t, w.base, ana);
  const refused = await openStream(t, w.base, eve);
  assert.equal(refused.status, 429);
});

test('a closed stream gives its place back', async (t) => {
  const w = await world(t, { perUser: 1 });
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const first = await openStream(t, w.base, ana);
  first.close();
  for (let i = 0; i < 50 && w.feed.size > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(w.feed.size, 0);
  assert.equal((await openStream(t, w.base, ana)).status, 200);
});

test('signing out ends the open stream with a session-ended event', async (t) => {
  const w = await world(t, { sessionCheckTurns: 1 });
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const stream = await openStream(t, w.base, ana);
  const out = await asUser(w.service, ana, 'POST', '/v1/auth/sign-out');
  assert.equal(out.statusCode, 204);
  await w.feed.turn();
  assert.equal(await stream.next(), 'event: session-ended\ndata: {}');
  assert.equal(await stream.next(), undefined);
  assert.equal(w.feed.size, 0);
});

test('a stream with nothing to say gets a comment line once the heartbeat is due', async (t) => {
  const w = await world(t);
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const stream = await openStream(t, w.base, ana);
  w.clock.now += 15_000;
  await w.feed.turn();
  assert.equal(await stream.next(), ':');
});

test('an API key cannot open a stream: API key not authorized', async (t) => {
  const w = await world(t);
  const res = await fetch(`${w.base}/v1/events/stream`, { headers: { authorization: `Bearer ${w.account.apiKey}` } });
  assert.equal(res.status, 401);
  assert.deepStrictEqual(await res.json(), { message: 'API key not authorized.' });
});

test('a message accepted by one process reaches a stream open on another', { skip: process.env.HERALD_TEST_STORE === 'postgres' ? false : 'two API processes share a store on PostgreSQL' }, async (t) => {
  const store = await sharedStore(t);
  const sending = await startServiceOn(t, store, { liveFeedOptions: MANUAL });
  const streaming = await startServiceOn(t, store, { liveFeedOptions: MANUAL });
  const account = await openAccount(sending);
  const w: UsersWorld = { service: streaming, account, clock: { now: T0 } };
  const base = await listening(w);
  const ana = await signedInUser(w, 'ana@example.org', 'viewer');
  const stream = await openStream(t, base, ana);
  const feed = streaming.liveFeed;
  assert.ok(feed !== undefined);
  await feed.turn();
  const sent = await post(sending, '/v1/email', account.apiKey, emailBody());
  assert.equal(sent.statusCode, 200, sent.body);
  await feed.turn();
  assert.equal(dataOf(await stream.next())['message_id'], sent.json().to[0].msgid);
});
