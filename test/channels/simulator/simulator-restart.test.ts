// The simulator's later reports are rows (outbox/simulated-reports.ts), not timers: a
// process that stops before they fall due loses none, and the next one records them in
// their order, one at a time, however late. (A store shared by two services in turn.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { emailBody, get, openAccount, post, sharedStore, startService } from '../../support/service.ts';

test('reports not yet due when a process stops are recorded by the next one, in their order', async (t) => {
  const url = await sharedStore(t);
  const at = Date.parse('2030-01-01T00:00:00.000Z');
  const env = { HERALD_DATABASE_URL: url, HERALD_SIMULATOR_STEP_MS: '60000' };
  const first = await startService(t, { clock: () => at, env });
  const account = await openAccount(first);
  const msgid = (await post(first, '/v1/email', account.apiKey, emailBody({ to: [{ email: 'clicked@simulator.herald.test' }] }))).json().to[0].msgid as string;
  await first.worker.drain();
  await first.close();

  // Every report is due by now: the queue still records them one at a time, in order.
  const next = await startService(t, { worker: true, clock: () => at + 10 * 60_000, env });
  const types = async () => ((await get(next, `/v1/messages/${msgid}`, account.apiKey)).json().events as { type: string }[]).map((e) => e.type);
  const deadline = Date.now() + 10_000;
  while (!(await types()).includes('clicked') && Date.now() < deadline) await sleep(20);
  assert.deepStrictEqual(await types(), ['queued', 'sending', 'sent', 'delivered', 'opened', 'clicked']);
});
