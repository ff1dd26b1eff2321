// Delivery confirmed through a real relay: herald sends through Debian's Postfix (a
// throwaway instance on loopback, test/peers/postfix.ts), which relays to a loopback
// SMTP sink and sends its delivery status notifications back to herald's inbound
// listener. The sink offers no DSN, so Postfix reports `relayed` itself (RFC 3461 §5.2.2.1).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../src/service.ts';
import { startPostfix, skipWithoutPostfix } from '../peers/postfix.ts';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';
import { closedPort } from '../support/closed-port.ts';
import { emailBody, get, openAccount, post, startService, type TestAccount } from '../support/service.ts';
import { verpOf } from '../support/verp.ts';

const BOUNCE_DOMAIN = 'bounces.herald.test';
const RELAY_NAME = 'relay.herald.test';
const TIMEOUT_MS = 60_000;

interface World {
  readonly service: Service;
  readonly account: TestAccount;
  readonly sink: SmtpSink;
  /** Postfix's log, for a failing wait's message. */
  readonly relayLog: () => Promise<string>;
}

/** `query`: the relay URL's options, e.g. `?delivered=accepted`. */
async function startWorld(t: TestContext, query = ''): Promise<World> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const relayPort = await closedPort();
  const service = await startService(t, {
    env: {
      HERALD_EMAIL_TRANSPORT: `smtp://127.0.0.1:${relayPort}${query}`, HERALD_INBOUND_SMTP_PORT: '0', HERALD_INBOUND_SMTP_HOST: '127.0.0.1',
      HERALD_BOUNCE_DOMAIN: BOUNCE_DOMAIN, HERALD_PUBLIC_URL: 'https://herald.test',
    },
  });
  const postfix = await startPostfix({
    port: relayPort, hostname: RELAY_NAME, routes: { 'example.org': sink.port, [BOUNCE_DOMAIN]: service.inboundSmtpPort ?? 0 },
  });
  t.after(() => postfix.close());
  return { service, account: await openAccount(service), sink, relayLog: postfix.log };
}

/** Sends one email through the API and lets the worker hand it to the relay. */
async function sendThroughRelay(world: World): Promise<string> {
  const res = await post(world.service, '/v1/email', world.account.apiKey, emailBody({ to: [{ email: 'ana@example.org' }] }));
  assert.equal(res.statusCode, 200);
  const msgid: string = res.json().to[0].msgid;
  await world.service.worker.drain();
  return msgid;
}

type View = { status: string; events: Record<string, unknown>[] };

/** The message once it reaches `status`; Postfix works on its own time, so this polls. */
async function messageWhen(world: World, msgid: string, status: string): Promise<View> {
  const deadline = Date.now() + TIMEOUT_MS / 2;
  for (;;) {
    const view: View = (await get(world.service, `/v1/messages/${msgid}`, world.account.apiKey)).json();
    if (view.status === status) return view;
    if (Date.now() > deadline) assert.fail(`message ${msgid} is ${view.status}, not ${status}: ${JSON.stringify(view.events)}\nPostfix's log:\n${await world.relayLog()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const withoutTime = ({ at: _at, ...event }: Record<string, unknown>) => event;

test('through Postfix the message reaches delivered, with the relay\'s notice in its timeline', { skip: skipWithoutPostfix, timeout: TIMEOUT_MS }, async (t) => {
  const world = await startWorld(t);
  const msgid = await sendThroughRelay(world);

  const view = await messageWhen(world, msgid, 'delivered');

  assert.deepStrictEqual(view.events.map((e) => e.type), ['queued', 'sending', 'sent', 'delivered']);
  assert.deepStrictEqual(withoutTime(view.events[3] ?? {}), {
    type: 'delivered', action: 'relayed', status_code: '2.0.0', diagnostic: '250 OK: message queued', remote_mta: '127.0.0.1',
    source: 'dsn', reporting_mta: RELAY_NAME,
  });
  assert.deepStrictEqual(world.sink.messages.map((m) => [m.mailFrom, m.rcptTo]), [[verpOf(world.service, msgid), ['ana@example.org']]]);
});

test('a recipient the next hop refuses after Postfix took the message ends bounced, from Postfix\'s notice', { skip: skipWithoutPostfix, timeout: TIMEOUT_MS }, async (t) => {
  const world = await startWorld(t);
  world.sink.failNext({ stage: 'rcpt', code: 550, message: '5.1.1 <ana@example.org>: user unknown' });
  const msgid = await sendThroughRelay(world);

  const view = await messageWhen(world, msgid, 'bounced');

  assert.deepStrictEqual(view.events.map((e) => e.type), ['queued', 'sending', 'sent', 'bounced']);
  assert.deepStrictEqual(withoutTime(view.events[3] ?? {}), {
    type: 'bounced', bounce_type: 'hard', status_code: '5.1.1', diagnostic: '550 5.1.1 <ana@example.org>: user unknown', source: 'dsn',
    reporting_mta: RELAY_NAME,
  });
});

test('with ?delivered=accepted Postfix\'s 250 is delivered, and a next hop\'s refusal still comes back as a bounce', { skip: skipWithoutPostfix, timeout: TIMEOUT_MS }, async (t) => {
  const world = await startWorld(t, '?delivered=accepted');
  world.sink.failNext({ stage: 'rcpt', code: 550, message: '5.1.1 <ana@example.org>: user unknown' });
  const msgid = await sendThroughRelay(world);

  const view = await messageWhen(world, msgid, 'bounced');

  assert.deepStrictEqual(view.events.map((e) => e.type), ['queued', 'sending', 'delivered', 'bounced']);
});
