// The simulator as a transport (src/channels/simulator/): each attempt's outcome at once,
// the accepting one carrying the reports that follow (stored with it by the outbox).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulatorTransport } from '../../../src/channels/simulator/simulator-transport.ts';

const outbound = (recipient: string, attempt = 1) => ({ msgid: 'm-1', accountId: 'a-1', attempt, recipient, payload: {} });
const signal = new AbortController().signal;

test('an attempt to clicked@ is accepted, carrying delivered, opened and clicked a step apart', async () => {
  const outcome = await simulatorTransport('email', 250).send(outbound('clicked@simulator.herald.test'), signal);
  assert.deepStrictEqual(outcome, {
    kind: 'accepted', peer: 'simulator', response: '250 2.0.0 Ok: queued (simulated)', simulated: { later: ['delivered', 'opened', 'clicked'], stepMs: 250 },
  });
});

test('deferred@ is deferred on its first attempt, with the step as the retry delay, and accepted on the second', async () => {
  const transport = simulatorTransport('email', 1234);
  const first = await transport.send(outbound('deferred@simulator.herald.test', 1), signal);
  const second = await transport.send(outbound('deferred@simulator.herald.test', 2), signal);
  assert.deepStrictEqual([first, second.kind], [
    { kind: 'deferred', peer: 'simulator', response: '451 4.3.0 Temporary failure, try again later (simulated)', retryAfterMs: 1234 }, 'accepted',
  ]);
});

test('a WhatsApp destination of the read range is accepted, carrying delivered then read', async () => {
  const outcome = await simulatorTransport('whatsapp', 5).send(outbound('447700900300'), signal);
  assert.deepStrictEqual(outcome.kind === 'accepted' ? outcome.simulated : undefined, { later: ['delivered', 'read'], stepMs: 5 });
});

test('a recipient outside the simulator is refused without leaving', async () => {
  const outcome = await simulatorTransport('email', 5).send(outbound('ana@example.org'), signal);
  assert.deepStrictEqual(outcome, { kind: 'failed', peer: 'simulator', response: 'not a simulator recipient', leftTheHouse: false });
});
