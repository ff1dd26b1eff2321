// Idempotency keys hold across API processes (README "Idempotent sends"): two
// `serve --role api` processes on one PostgreSQL schema, reached over HTTP. The key lives
// in the database, written in the send's transaction; a request under a key that another
// process is sending waits for that transaction and answers its answer.
// Needs TEST_POSTGRES_URL and TEST_REDIS_URL (startCluster); skipped, saying so, without.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HeraldProcess } from '../support/herald-process.ts';
import { ledgerByReason, ledgerOf, openAccountByAdmin, sendEmail, skipWithoutServers, startCluster, type Cluster } from '../support/multi-process.ts';

const REUSED = { message: 'Idempotency key already used with a different request' };
const IN_FLIGHT = { message: 'A request with this idempotency key is being processed' };

interface Answer {
  readonly status: number;
  readonly replayed: string | null;
  readonly body: unknown;
}

async function keyedEmail(api: HeraldProcess, apiKey: string, key: string, to: string): Promise<Answer> {
  const res = await fetch(`${api.url}/v1/email`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ to: [{ email: to }], from: { email: 'news@example.com', name: 'News' }, replyTo: { email: 'help@example.com', name: 'Help' }, subject: 'Hello', body: '<p>Hi there</p>' }),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.json() };
}

describe('idempotency keys across two API processes on one PostgreSQL', { skip: skipWithoutServers, timeout: 120_000 }, () => {
  let cluster: Cluster;
  let apiA: HeraldProcess;
  let apiB: HeraldProcess;
  before(async () => {
    cluster = await startCluster({ apis: 2, workers: [] });
    [apiA, apiB] = cluster.apis as [HeraldProcess, HeraldProcess];
    const warmUp = await openAccountByAdmin(apiA, { messagesLeft: 10, rateLimitPerSecond: 1000 });
    for (const api of cluster.apis) assert.equal((await sendEmail(api, warmUp.apiKey, 'warm@example.org')).status, 200);
  });
  after(async () => {
    const errors = cluster?.apis.flatMap((api) => api.errorLines()) ?? [];
    await cluster?.stop();
    assert.deepStrictEqual(errors, [], 'the processes logged no error');
  });

  test('a send through one process, retried through the other with the same key, gets the first answer with Idempotent-Replayed: true; one debit', async () => {
    const account = await openAccountByAdmin(apiA, { messagesLeft: 10, rateLimitPerSecond: 1000 });
    const first = await keyedEmail(apiA, account.apiKey, 'retry-1', 'ana@example.org');
    const retried = await keyedEmail(apiB, account.apiKey, 'retry-1', 'ana@example.org');

    assert.equal(first.status, 200);
    assert.equal(first.replayed, null);
    assert.deepStrictEqual(retried, { status: 200, replayed: 'true', body: first.body });
    assert.deepStrictEqual(ledgerByReason(await ledgerOf(apiB, account.id)), {
      'account.open': { entries: 1, messages: 10, balance: 0 },
      'email.send': { entries: 1, messages: -1, balance: 0 },
    });
  });

  test('the same key with another body through the other process answers 422', async () => {
    const account = await openAccountByAdmin(apiA, { messagesLeft: 10, rateLimitPerSecond: 1000 });
    assert.equal((await keyedEmail(apiA, account.apiKey, 'retry-2', 'ana@example.org')).status, 200);
    const other = await keyedEmail(apiB, account.apiKey, 'retry-2', 'bo@example.org');

    assert.deepStrictEqual(other, { status: 422, replayed: null, body: REUSED });
    assert.equal(ledgerByReason(await ledgerOf(apiA, account.id))['email.send']?.entries, 1);
  });

  test('20 keys, each posted at once through both processes: each is sent once and the other request answers its replay, 20 debits', async () => {
    const account = await openAccountByAdmin(apiA, { messagesLeft: 100, rateLimitPerSecond: 100_000 });
    const pairs = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      Promise.all([keyedEmail(apiA, account.apiKey, `race-${i}`, `r${i}@example.org`), keyedEmail(apiB, account.apiKey, `race-${i}`, `r${i}@example.org`)])));

    let replays = 0;
    for (const [i, pair] of pairs.entries()) {
      const fresh = pair.filter((a) => a.status === 200 && a.replayed === null);
      assert.equal(fresh.length, 1, `key race-${i}: ${JSON.stringify(pair)}`);
      const other = pair.find((a) => a !== fresh[0])!;
      if (other.status === 409) assert.deepStrictEqual(other.body, IN_FLIGHT);
      else {
        assert.deepStrictEqual(other, { status: 200, replayed: 'true', body: fresh[0]!.body });
        replays += 1;
      }
    }
    const msgids = pairs.map((pair) => (pair.find((a) => a.replayed === null)!.body as { to: [{ msgid: string }] }).to[0].msgid);
    const stored = await cluster.db.selectFrom('messages').select('id').where('account_id', '=', account.id).execute();
    assert.deepStrictEqual(new Set(stored.map((m) => m.id)), new Set(msgids));
    assert.deepStrictEqual(ledgerByReason(await ledgerOf(apiA, account.id))['email.send'], { entries: 20, messages: -20, balance: 0 });
    // No process knows what the other has in flight: the later request found the key stored,
    // or waited on its row for the other's transaction; either way it answers the replay.
    assert.equal(replays, 20);
  });
});
