// The per-destination-domain limit (messages_per_minute_per_domain) together with
// messages_per_minute, measured where it matters: at an SMTP peer on loopback that the
// service relays to. The service runs on an injected clock stepped by hand; each step
// lets the campaign runner and the outbox worker do what is due and waits for their
// deliveries, so a message the peer received during a step was received at that
// step's time — the receipt times below are the peer's, on the service's clock.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { CampaignRunner, DEFAULT_CAMPAIGN_RUNNER_OPTIONS } from '../../src/queue/campaigns/campaign-runner.ts';
import { startSmtpSink } from '../peers/smtp-sink.ts';
import { T0 } from '../support/sent-mail.ts';
import { get, send as request } from '../support/service.ts';
import { action, campaignBody, campaignWorld, createCampaign, makeContact, makeList, type CampaignWorld } from '../support/campaigns.ts';

interface Receipt {
  /** Seconds after T0 on the service's clock. */
  readonly at: number;
  readonly to: string;
}

interface RelayWorld extends CampaignWorld {
  /** Steps the clock by `stepMs` for `seconds`, recording what the peer received at each step; `runner`: the service's. */
  runFor(seconds: number, stepMs: number, runner?: CampaignRunner): Promise<void>;
  readonly receipts: Receipt[];
}

async function relayWorld(t: TestContext): Promise<RelayWorld> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const w = await campaignWorld(t, { env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}` } });
  const receipts: Receipt[] = [];
  const runFor = async (seconds: number, stepMs: number, runner = w.service.campaigns): Promise<void> => {
    for (let elapsed = 0; elapsed < seconds * 1000; elapsed += stepMs) {
      await runner?.drain();
      await w.service.worker.drain();
      for (const message of sink.messages.splice(0)) for (const to of message.rcptTo) receipts.push({ at: (w.clock.now - T0) / 1000, to });
      w.clock.now += stepMs;
    }
  };
  return { ...w, runFor, receipts };
}

/** The contacts, created in this order (the runner walks them in it), on one list; the list. */
async function audienceOf(w: CampaignWorld, emails: readonly string[]): Promise<string> {
  const list = await makeList(w, 'News');
  for (const email of emails) await makeContact(w, email, { name: email.split('@')[0], lists: [list] });
  return list;
}

async function send(w: CampaignWorld, list: string, pace: Record<string, unknown>): Promise<string> {
  const id = await createCampaign(w, campaignBody([list], pace));
  assert.equal((await action(w, id, 'send')).statusCode, 200);
  return id;
}

const domainOf = (address: string): string => address.slice(address.indexOf('@') + 1);
const timesTo = (receipts: readonly Receipt[], domain: string): number[] => receipts.filter((r) => domainOf(r.to) === domain).map((r) => r.at);

/** The most receipts within any window of `seconds` (each window starting at a receipt). */
function busiestWindow(times: readonly number[], seconds: number): number {
  return Math.max(0, ...times.map((start) => times.filter((at) => at >= start && at < start + seconds).length));
}

test('a paced campaign keeps both limits at the peer: one message per 0.5 s, one per 5 s to each domain', async (t) => {
  const w = await relayWorld(t);
  // Walk order a b a c a b a c …: a.example has half the audience.
  const emails = Array.from({ length: 16 }, (_, i) => `r${i}@${i % 2 === 0 ? 'a' : i % 4 === 1 ? 'b' : 'c'}.example`);
  const list = await audienceOf(w, emails);
  const id = await send(w, list, { messages_per_minute: 120, messages_per_minute_per_domain: 12 });
  await w.runFor(50, 250);

  assert.equal(w.receipts.length, 16);
  assert.deepStrictEqual(timesTo(w.receipts, 'a.example'), [0, 5, 10, 15, 20, 25, 30, 35]);
  // b and c wait for the slot after a's in walk order (the campaign's slots are in that order).
  assert.deepStrictEqual(timesTo(w.receipts, 'b.example'), [0.5, 10.5, 20.5, 30.5]);
  assert.deepStrictEqual(timesTo(w.receipts, 'c.example'), [5.5, 15.5, 25.5, 35.5]);
  const all = w.receipts.map((r) => r.at);
  for (let i = 1; i < all.length; i += 1) assert.ok((all[i] ?? 0) - (all[i - 1] ?? 0) >= 0.5, JSON.stringify(all));
  assert.equal((await get(w.service, `/v1/campaigns/${id}`, w.account.apiKey)).json().status, 'finished');
});

test('no minute carries more than the per-domain limit to one domain, nor more than messages_per_minute in all', async (t) => {
  const w = await relayWorld(t);
  // Three domains, the first with 60 % of the audience; limits below what the audience could take in a minute.
  const emails = Array.from({ length: 40 }, (_, i) => `r${i}@${['big', 'big', 'big', 'mid', 'small'][i % 5]}.example`);
  const list = await audienceOf(w, emails);
  await send(w, list, { messages_per_minute: 30, messages_per_minute_per_domain: 15 });
  await w.runFor(130, 500);

  assert.equal(w.receipts.length, 40);
  assert.equal(new Set(w.receipts.map((r) => r.to)).size, 40);
  for (const domain of ['big.example', 'mid.example', 'small.example']) assert.ok(busiestWindow(timesTo(w.receipts, domain), 60) <= 15, domain);
  assert.ok(busiestWindow(w.receipts.map((r) => r.at), 60) <= 30);
  // Paced, the campaign's slots follow the walk: t = the later of the campaign's next slot
  // and the domain's, then +2 s for the campaign and +4 s for the domain. Three big.example
  // contacts in every five make the domain the bound (24 messages, at least 92 s), and the
  // slots given up waiting for it bring the last message, to small.example, to 110 s.
  assert.deepStrictEqual([timesTo(w.receipts, 'big.example').at(-1), Math.max(...w.receipts.map((r) => r.at))], [106, 110]);
});

test('an unpaced campaign sends other domains at once and holds only the limited one to its pace', async (t) => {
  const w = await relayWorld(t);
  // big.example alternates with five domains of one contact each.
  const emails = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? `r${i}@big.example` : `r${i}@small${i}.example`));
  const list = await audienceOf(w, emails);
  await send(w, list, { messages_per_minute_per_domain: 6 });
  await w.runFor(50, 500);

  assert.deepStrictEqual(timesTo(w.receipts, 'big.example'), [0, 10, 20, 30, 40]);
  // Each small domain's contact comes after a big.example one in the walk: it goes as soon as the
  // walk reaches it, which is when that big.example message is within the runner's 5 s look-ahead.
  assert.deepStrictEqual(w.receipts.filter((r) => !r.to.endsWith('@big.example')).map((r) => r.at), [0, 5, 15, 25, 35]);
});

test('the default per-domain limit is 600 a minute, and null lifts it', async (t) => {
  const w = await relayWorld(t);
  const list = await audienceOf(w, Array.from({ length: 5 }, (_, i) => `r${i}@one.example`));
  const limited = await createCampaign(w, campaignBody([list]));
  assert.equal((await get(w.service, `/v1/campaigns/${limited}`, w.account.apiKey)).json().messages_per_minute_per_domain, 600);
  assert.equal((await action(w, limited, 'send')).statusCode, 200);
  await w.runFor(1, 100);
  assert.deepStrictEqual(w.receipts.map((r) => r.at), [0, 0.1, 0.2, 0.3, 0.4]);

  w.receipts.length = 0;
  const start = (w.clock.now - T0) / 1000;
  await send(w, list, { messages_per_minute_per_domain: null });
  await w.runFor(0.1, 100);
  assert.deepStrictEqual(w.receipts.map((r) => r.at), [start, start, start, start, start]);
});

test('a runner that takes a campaign over keeps its domains\' pace: it is stored with each batch, and dropped at the end', async (t) => {
  const w = await relayWorld(t);
  const list = await audienceOf(w, Array.from({ length: 6 }, (_, i) => `r${i}@one.example`));
  const id = await send(w, list, { messages_per_minute_per_domain: 6 });
  await w.runFor(12, 500);
  assert.deepStrictEqual(w.receipts.map((r) => r.at), [0, 10]);
  const paces = () => w.service.deps.db.selectFrom('campaign_domains').select(['domain', 'next_at']).where('campaign_id', '=', id).execute();
  assert.deepStrictEqual((await paces()).map((p) => [p.domain, (Number(p.next_at) - T0) / 1000]), [['one.example', 20]]);

  // The service's runner stops; another, which never saw the campaign, goes on with it.
  await w.service.campaigns?.stop();
  const other = new CampaignRunner(w.service.deps, w.service.store.capabilities, pino({ level: 'silent' }), DEFAULT_CAMPAIGN_RUNNER_OPTIONS);
  await w.runFor(50, 500, other);
  assert.deepStrictEqual(w.receipts.map((r) => r.at), [0, 10, 20, 30, 40, 50]);
  await w.runFor(1, 500, other);
  assert.equal((await get(w.service, `/v1/campaigns/${id}`, w.account.apiKey)).json().status, 'finished');
  assert.deepStrictEqual(await paces(), []);
});

test('a paused campaign\'s per-domain limit changes by PATCH: the slot already given holds, the new pace follows', async (t) => {
  const w = await relayWorld(t);
  const list = await audienceOf(w, Array.from({ length: 6 }, (_, i) => `r${i}@one.example`));
  const id = await send(w, list, { messages_per_minute_per_domain: 6 });
  await w.runFor(12, 500);
  assert.equal((await action(w, id, 'pause')).statusCode, 200);
  const patched = await request(w.service, 'PATCH', `/v1/campaigns/${id}`, w.account.apiKey, { messages_per_minute_per_domain: 60 });
  assert.deepStrictEqual([patched.statusCode, patched.json().messages_per_minute_per_domain], [200, 60]);
  assert.equal((await action(w, id, 'resume')).statusCode, 200);
  await w.runFor(20, 500);
  // 0 and 10 at 6 a minute; the domain's next slot (20 s) was stored before the change; then one a second.
  assert.deepStrictEqual(w.receipts.map((r) => r.at), [0, 10, 20, 21, 22, 23]);
});
