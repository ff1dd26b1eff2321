// The live feed's reading of the store (app/live-feed.ts): a row committed after a greater
// id is still handed out, once; nothing from before the feed started is replayed; a slow
// reader is closed. Turns driven by hand; runs on both stores.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { LiveCloseReason, LiveEvent, LiveFeed } from '../../src/app/live-feed.ts';
import type { Service } from '../../src/service.ts';
import { emailBody, openAccount, post, send, startService, type TestAccount } from '../support/service.ts';

interface Watch {
  readonly events: LiveEvent[];
  readonly closed: LiveCloseReason[];
}

async function world(t: TestContext): Promise<{ service: Service; account: TestAccount; feed: LiveFeed }> {
  // No session checks: the watcher's session is made up.
  const service = await startService(t, { liveFeedOptions: { pollMs: 3_600_000, sessionCheckTurns: 1_000_000 } });
  const account = await openAccount(service);
  assert.ok(service.liveFeed !== undefined);
  return { service, account, feed: service.liveFeed };
}

function watch(feed: LiveFeed, accountId: string, accepts: () => boolean = () => true): Watch {
  const events: LiveEvent[] = [];
  const closed: LiveCloseReason[] = [];
  const opened = feed.open({
    accountId, userId: 'user', sessionId: 'session',
    send: (event) => {
      if (!accepts()) return false;
      events.push(event);
      return true;
    },
    heartbeat: () => true,
    close: (reason) => {
      closed.push(reason);
      if (opened.ok) opened.remove();
    },
  });
  assert.equal(opened.ok, true);
  return { events, closed };
}

async function sendOne(service: Service, account: TestAccount): Promise<string> {
  const res = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(res.statusCode, 200, res.body);
  return res.json().to[0].msgid;
}

async function addEvent(service: Service, id: string, messageId: string, type: string): Promise<void> {
  await service.deps.db.insertInto('message_events').values({ id, message_id: messageId, type, at: Date.now(), data: '{}', sending_at: null }).execute();
}

test('what happened before the feed started is not replayed', async (t) => {
  const { service, account, feed } = await world(t);
  await sendOne(service, account);
  const seen = watch(feed, account.id);
  await feed.turn();
  assert.deepStrictEqual(seen.events, []);
});

test('a row that becomes visible after a greater id is still handed out, and each row only once', async (t) => {
  const { service, account, feed } = await world(t);
  const seen = watch(feed, account.id);
  await feed.turn();
  const messageId = await sendOne(service, account);
  const earlier = service.deps.newId();
  const later = service.deps.newId();
  await addEvent(service, later, messageId, 'opened');
  await feed.turn();
  await addEvent(service, earlier, messageId, 'clicked');
  await feed.turn();
  await feed.turn();
  assert.deepStrictEqual(seen.events.map((event) => [event.type, event['status']]), [
    ['message.created', 'queued'], ['message.updated', 'opened'], ['message.updated', 'clicked'],
  ]);
});

test('a reader that takes no more is closed as too slow, and its place given back', async (t) => {
  const { service, account, feed } = await world(t);
  const seen = watch(feed, account.id, () => false);
  await feed.turn();
  await sendOne(service, account);
  await feed.turn();
  assert.deepStrictEqual(seen.closed, ['too-slow']);
  assert.equal(feed.size, 0);
});

test('an import that begins and ends between two turns is still told, with its counts', async (t) => {
  const { service, account, feed } = await world(t);
  const seen = watch(feed, account.id);
  await feed.turn();
  const res = await send(service, 'POST', '/v1/contacts/imports', account.apiKey, 'email,name\r\nana@example.org,Ana\r\nbo@example.org,Bo\r\n', 'text/csv');
  assert.equal(res.statusCode, 202, res.body);
  await service.imports?.drain();
  await feed.turn();
  assert.deepStrictEqual(seen.events.filter((event) => event.type === 'import.updated').map(({ at: _at, ...event }) => event), [
    { type: 'import.updated', import_id: res.json().import_id, status: 'finished', rows: 2, created: 2, updated: 0, rejected: 0 },
  ]);
});
