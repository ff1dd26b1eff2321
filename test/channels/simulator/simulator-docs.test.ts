// The simulator tables of the README and docs/sandbox.md are the scenarios of
// src/domain/simulator.ts, row for row: what a reader is told is what the simulator does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { SIMULATOR_TABLE, simulatorScenario, type Scenario } from '../../../src/domain/simulator.ts';
import type { Channel } from '../../../src/domain/account.ts';

/** The webhook types a scenario posts, in order, and the status it ends in. */
function described(channel: Channel, scenario: Scenario): { types: string[]; ends: string } {
  const types = [...scenario.attempts, ...scenario.later].map((step) => `${channel}.${step}`);
  const moves = ['sent', ...scenario.later.map((step) => (step === 'read' ? 'delivered' : step)).filter((s) => ['delivered', 'bounced', 'failed'].includes(s))];
  return { types, ends: moves.at(-1) ?? 'sent' };
}

const expectedRows = SIMULATOR_TABLE.map(({ channel, recipient, scenario }) => {
  const { types, ends } = described(channel, scenario);
  return `| \`${recipient}\` | ${channel} | ${types.map((type) => `\`${type}\``).join(', ')} | ${ends} |`;
});

const rowsOf = (text: string): string[] => text.split('\n').filter((line) => /^\| `(\+447700900|[a-z]+@simulator\.herald\.test)/.test(line));

test('docs/sandbox.md lists every simulator recipient with the webhooks it posts and the status it ends in', async () => {
  assert.deepStrictEqual(rowsOf(await readFile(new URL('../../../docs/sandbox.md', import.meta.url), 'utf8')), expectedRows);
});

test('the README lists the same simulator recipients', async () => {
  assert.deepStrictEqual(rowsOf(await readFile(new URL('../../../README.md', import.meta.url), 'utf8')), expectedRows);
});

test('a +label after the name keeps the scenario, and any case of the domain is the simulator\'s', () => {
  assert.equal(simulatorScenario('email', 'bounced+signup-42@Simulator.Herald.TEST')?.name, 'bounced');
});

test('an unknown name at the simulator domain is delivered, never sent for real', () => {
  assert.equal(simulatorScenario('email', 'whoever@simulator.herald.test')?.name, 'delivered');
});

test('a number next to the range is an ordinary number', () => {
  assert.deepStrictEqual([simulatorScenario('sms', '+4477009001000'), simulatorScenario('sms', '+447700901100'), simulatorScenario('whatsapp', '447700900300')?.name], [undefined, undefined, 'read']);
});

test('SMS has no read scenario: +4477009003xx is delivered', () => {
  assert.equal(simulatorScenario('sms', '+447700900399')?.name, 'delivered');
});
