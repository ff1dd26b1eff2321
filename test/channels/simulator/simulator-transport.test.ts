// The simulator as a transport (src/channels/simulator/): the attempt's outcome at once,
// the later reports handed to its recordStep one step apart, in order; a report that
// comes before the outcome committed is offered again; close() cancels what is not due.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Simulator, type StepResult } from '../../../src/channels/simulator/simulator-transport.ts';

const outbound = (recipient: string, attempt = 1) => ({ msgid: 'm-1', accountId: 'a-1', attempt, recipient, payload: {} });
const signal = new AbortController().signal;

function simulator(stepMs: number, answers: StepResult[] = []) {
  const steps: string[] = [];
  const sim = new Simulator({
    stepMs,
    logger: pino({ level: 'silent' }),
    recordStep: async (_target, step) => {
      steps.push(step);
      return answers.shift() ?? 'recorded';
    },
  });
  return { sim, steps };
}

test('an attempt to clicked@ is accepted at once and its reports follow in order', async (t) => {
  const { sim, steps } = simulator(5);
  t.after(() => sim.close());
  const outcome = await sim.transport('email').send(outbound('clicked@simulator.herald.test'), signal);
  assert.deepStrictEqual([outcome.kind, steps], ['accepted', []]);
  for (let i = 0; steps.length < 3 && i < 1000; i++) await sleep(5);
  assert.deepStrictEqual(steps, ['delivered', 'opened', 'clicked']);
});

test('deferred@ is deferred on its first attempt, with the step as the retry delay, and accepted on the second', async (t) => {
  const { sim } = simulator(1234);
  t.after(() => sim.close());
  const first = await sim.transport('email').send(outbound('deferred@simulator.herald.test', 1), signal);
  const second = await sim.transport('email').send(outbound('deferred@simulator.herald.test', 2), signal);
  assert.deepStrictEqual([first.kind, first.kind === 'deferred' ? first.retryAfterMs : undefined, second.kind], ['deferred', 1234, 'accepted']);
});

test('a report that finds its message not yet accepted is offered again, then the next one follows', async (t) => {
  const { sim, steps } = simulator(0, ['not-yet', 'not-yet']);
  t.after(() => sim.close());
  await sim.transport('whatsapp').send(outbound('447700900300'), signal);
  for (let i = 0; steps.length < 4 && i < 500; i++) await sleep(10);
  assert.deepStrictEqual(steps, ['delivered', 'delivered', 'delivered', 'read']);
});

test('close() cancels the reports not yet due', async () => {
  const { sim, steps } = simulator(50);
  await sim.transport('sms').send(outbound('+447700900100'), signal);
  await sim.close();
  await sleep(100);
  assert.deepStrictEqual(steps, []);
});

test('a recipient outside the simulator is refused without leaving', async (t) => {
  const { sim } = simulator(5);
  t.after(() => sim.close());
  const outcome = await sim.transport('email').send(outbound('ana@example.org'), signal);
  assert.deepStrictEqual(outcome, { kind: 'failed', peer: 'simulator', response: 'not a simulator recipient', leftTheHouse: false });
});
