// Scheduled sends survive the process: herald (`serve --role all`, a child process) accepts
// an SMS with send_at a few seconds ahead, is stopped (SIGTERM) or killed (SIGKILL), and
// started again on the same store; the message must leave once, at its time. Its release
// is its claim, the `sending` step of GET /v1/messages/:msgid, compared with send_at: the
// idle worker claims due rows every pollMs (1 s), so the claim lands within a second of
// the time (plus the few milliseconds of the claim that started the wait).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Cleanups, storeUrl } from '../support/commit-watch.ts';
import { startHerald, type HeraldProcess } from '../support/herald-process.ts';
import { ADMIN_TOKEN, ledgerByReason, ledgerOf, openAccountByAdmin } from '../support/multi-process.ts';
import { TEST_POSTGRES_URL } from '../support/postgres.ts';

/** How far ahead the send is scheduled: time enough for herald's second start. */
const AHEAD_MS = 8000;
/** The poll interval, and the margin for the claim before the wait and the timer's own lateness. */
const POLL_MS = 1000;
const MARGIN_MS = 50;

interface MessageView {
  readonly status: string;
  readonly send_at?: string;
  readonly events: readonly { readonly type: string; readonly at: string }[];
}

async function messageOf(herald: HeraldProcess, apiKey: string, msgid: string): Promise<MessageView> {
  const res = await fetch(`${herald.url}/v1/messages/${msgid}`, { headers: { authorization: `Bearer ${apiKey}` } });
  assert.equal(res.status, 200);
  return await res.json() as MessageView;
}

for (const kind of ['sqlite', 'postgres'] as const) {
  for (const ending of ['SIGTERM', 'SIGKILL'] as const) {
    const skip = kind === 'postgres' && (TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === '') ? 'needs TEST_POSTGRES_URL' : false;
    test(`${kind}: a scheduled SMS accepted before a ${ending} leaves once, within a second of its time, after the restart`, { skip, timeout: 90_000 }, async (t) => {
      const cleanups: Cleanups = [];
      t.after(async () => {
        for (const cleanup of cleanups.reverse()) await cleanup();
      });
      const url = await storeUrl(cleanups, kind);
      const env = { HERALD_DATABASE_URL: url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN };
      const first = await startHerald('all', env);
      cleanups.push(() => first.kill());
      const account = await openAccountByAdmin(first, { messagesLeft: 10, rateLimitPerSecond: 100 });

      const sendAt = Date.now() + AHEAD_MS;
      const sent = await fetch(`${first.url}/v1/sms/send`, {
        method: 'POST', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Your table is ready', mobile_numbers: ['+5215512345678'], send_at: new Date(sendAt).toISOString() }),
      });
      assert.equal(sent.status, 200);
      const msgid = ((await sent.json()) as { messages: { msgid: string }[] }).messages[0]!.msgid;
      await first.kill(ending);

      const second = await startHerald('all', env);
      cleanups.push(() => second.kill('SIGTERM'));
      assert.ok(Date.now() < sendAt - POLL_MS, 'herald started again before the message was due');
      assert.equal((await messageOf(second, account.apiKey, msgid)).status, 'scheduled');

      let view = await messageOf(second, account.apiKey, msgid);
      const deadline = sendAt + 10_000;
      // Claimed (`sending`) comes before the capture transport's outcome (`sent`): wait for the outcome.
      while ((view.status === 'scheduled' || view.status === 'sending') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        view = await messageOf(second, account.apiKey, msgid);
      }
      assert.equal(view.status, 'sent');
      const claims = view.events.filter((e) => e.type === 'sending').map((e) => Date.parse(e.at));
      assert.equal(claims.length, 1, 'one attempt');
      const lateness = claims[0]! - sendAt;
      t.diagnostic(`released ${lateness} ms after send_at`);
      assert.ok(lateness >= 0 && lateness <= POLL_MS + MARGIN_MS, `released ${lateness} ms after send_at`);
      assert.deepStrictEqual(ledgerByReason(await ledgerOf(second, account.id)), {
        'account.open': { entries: 1, messages: 10, balance: 0 },
        'sms.send': { entries: 1, messages: -1, balance: 0 },
      });
      assert.deepStrictEqual(second.errorLines(), []);
    });
  }
}
