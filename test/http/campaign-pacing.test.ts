// messages_per_minute: a paced campaign's messages reach the transport one interval
// apart, measured over the times the transport took them (the capture transport on the
// service's injected clock, stepped a second at a time), and a pause holds within the
// runner's look-ahead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from '../support/service.ts';
import { T0 } from '../support/sent-mail.ts';
import { action, campaignBody, campaignWorld, createCampaign, makeContact, makeList, type CampaignWorld } from '../support/campaigns.ts';

/** Steps the clock one second at a time for `seconds`, letting the runner and the worker do what is due at each step. */
async function runFor(w: CampaignWorld, seconds: number): Promise<void> {
  for (let s = 0; s < seconds; s += 1) {
    await w.service.campaigns?.drain();
    await w.service.worker.drain();
    w.clock.now += 1000;
  }
}

/** When the transport took each of the campaign's messages (its `sent` event), in order, as seconds after T0. */
async function sentTimes(w: CampaignWorld, campaign: string): Promise<number[]> {
  const recipients = (await get(w.service, `/v1/campaigns/${campaign}/recipients`, w.account.apiKey)).json().recipients as { msgid: string }[];
  const times: number[] = [];
  for (const r of recipients) {
    const events = (await get(w.service, `/v1/messages/${r.msgid}`, w.account.apiKey)).json().events as { type: string; at: string }[];
    const sent = events.find((e) => e.type === 'sent');
    if (sent !== undefined) times.push((Date.parse(sent.at) - T0) / 1000);
  }
  return times.sort((a, b) => a - b);
}

async function pacedCampaign(w: CampaignWorld, contacts: number, perMinute: number): Promise<string> {
  const list = await makeList(w, 'News');
  for (let i = 0; i < contacts; i += 1) await makeContact(w, `c${i}@example.org`, { name: `C${i}`, lists: [list] });
  const id = await createCampaign(w, campaignBody([list], { messages_per_minute: perMinute }));
  assert.equal((await action(w, id, 'send')).statusCode, 200);
  return id;
}

test('a campaign of 6 messages a minute hands the transport one message every 10 seconds', async (t) => {
  const w = await campaignWorld(t);
  const id = await pacedCampaign(w, 8, 6);
  await runFor(w, 90);
  assert.deepStrictEqual(await sentTimes(w, id), [0, 10, 20, 30, 40, 50, 60, 70]);
  await runFor(w, 2);
  assert.equal((await get(w.service, `/v1/campaigns/${id}`, w.account.apiKey)).json().status, 'finished');
});

test('no minute of a paced campaign carries more than messages_per_minute, whatever the batch size', async (t) => {
  const w = await campaignWorld(t, { campaignOptions: { batchSize: 7 } });
  const id = await pacedCampaign(w, 40, 30);
  await runFor(w, 90);
  const times = await sentTimes(w, id);
  assert.equal(times.length, 40);
  for (const start of times) assert.ok(times.filter((s) => s >= start && s < start + 60).length <= 30, `the minute from ${start} s`);
  assert.deepStrictEqual(times.slice(0, 4), [0, 2, 4, 6]);
});

test('pausing a paced campaign stops it within the look-ahead; resuming goes on at the pace', async (t) => {
  const w = await campaignWorld(t);
  const id = await pacedCampaign(w, 10, 6);
  await runFor(w, 25);
  assert.equal((await action(w, id, 'pause')).statusCode, 200);
  await runFor(w, 60);
  const paused = await sentTimes(w, id);
  // 0, 10, 20 went before the pause; the message made for 30 s (within the 5 s look-ahead) may still go.
  assert.ok(paused.length >= 3 && paused.length <= 4, JSON.stringify(paused));
  assert.equal((await action(w, id, 'resume')).statusCode, 200);
  await runFor(w, 120);
  const all = await sentTimes(w, id);
  assert.equal(all.length, 10);
  const resumed = all.slice(paused.length);
  for (let i = 1; i < resumed.length; i += 1) assert.ok((resumed[i] ?? 0) - (resumed[i - 1] ?? 0) >= 10, JSON.stringify(all));
});

test('an unpaced campaign keeps at most its backlog of messages in the outbox, so other sends are not queued behind its whole audience', async (t) => {
  const w = await campaignWorld(t, { campaignOptions: { batchSize: 5, backlog: 12 } });
  const list = await makeList(w, 'News');
  for (let i = 0; i < 30; i += 1) await makeContact(w, `c${i}@example.org`, { lists: [list] });
  // One domain: without a per-domain limit, only the backlog holds the runner.
  const id = await createCampaign(w, campaignBody([list], { messages_per_minute_per_domain: null }));
  await action(w, id, 'send');
  await w.service.campaigns?.drain();
  const made = async () => (await get(w.service, `/v1/campaigns/${id}/recipients?limit=1000`, w.account.apiKey)).json().recipients.length as number;
  // Batches of 5 while the outbox holds at most 12 - 5 of them: 0, 5, 10, then it waits.
  assert.equal(await made(), 10);
  await w.service.worker.drain();
  w.clock.now += 1000;
  await w.service.campaigns?.drain();
  assert.equal(await made(), 20);
  await runFor(w, 6);
  assert.deepStrictEqual([await made(), (await get(w.service, `/v1/campaigns/${id}`, w.account.apiKey)).json().status], [30, 'finished']);
});
