import type { Channel } from './account.ts';

// Simulator recipients (docs/sandbox.md): reserved addresses and numbers that behave the
// same with every transport and are never sent anywhere. Each names a scenario, a script
// of what the "peer" reports: the first step is the transport's outcome, the later ones
// arrive one delay apart, as a relay's notices or a gateway's receipts do, and each is
// recorded as the real status transition or event (app/record-simulated-step.ts).
//
// Email: <scenario>[+anything]@simulator.herald.test (`.test` is reserved, RFC 2606, so no
// such mailbox can exist). SMS and WhatsApp: +44 7700 900xxx, Ofcom's range kept for
// drama, never assigned to a subscriber; the hundreds digit picks the scenario.

export const SIMULATOR_EMAIL_DOMAIN = 'simulator.herald.test';

/** What the simulated peer says, in order. `deferred` is an attempt's outcome; the message is tried again. */
export type SimulatedStep =
  | 'deferred' | 'sent' | 'delivered' | 'bounced' | 'failed'
  | 'complained' | 'unsubscribed' | 'opened' | 'clicked' | 'read';

/** What the peer reports after it took the message. */
export type LaterStep = Exclude<SimulatedStep, 'deferred' | 'sent'>;

export interface Scenario {
  readonly name: string;
  /** Outcomes of the delivery attempts, one per attempt; the last one's (`sent` or `failed`) ends the delivery. */
  readonly attempts: readonly ('deferred' | 'sent' | 'failed')[];
  /** What the peer reports after the accepting attempt, one delay apart each. */
  readonly later: readonly LaterStep[];
}

const EMAIL_SCENARIOS: readonly Scenario[] = [
  { name: 'delivered', attempts: ['sent'], later: ['delivered'] },
  { name: 'bounced', attempts: ['sent'], later: ['bounced'] },
  { name: 'deferred', attempts: ['deferred', 'sent'], later: ['delivered'] },
  { name: 'complained', attempts: ['sent'], later: ['delivered', 'complained'] },
  { name: 'unsubscribed', attempts: ['sent'], later: ['delivered', 'unsubscribed'] },
  { name: 'opened', attempts: ['sent'], later: ['delivered', 'opened'] },
  { name: 'clicked', attempts: ['sent'], later: ['delivered', 'opened', 'clicked'] },
];

/** The number range, as digits without '+', and what the hundreds digit means. */
export const SIMULATOR_NUMBER_PREFIX = '447700900';

const NUMBER_SCENARIOS: Readonly<Record<Exclude<Channel, 'email'>, Readonly<Record<string, Scenario>>>> = {
  sms: {
    '1': { name: 'delivered', attempts: ['sent'], later: ['delivered'] },
    '2': { name: 'failed', attempts: ['sent'], later: ['failed'] },
  },
  whatsapp: {
    '1': { name: 'delivered', attempts: ['sent'], later: ['delivered'] },
    '2': { name: 'failed', attempts: ['sent'], later: ['failed'] },
    '3': { name: 'read', attempts: ['sent'], later: ['delivered', 'read'] },
  },
};

/** Every simulator recipient (numbers as their pattern, `xx` any two digits) and its scenario: the tables of the README and docs/sandbox.md. */
export const SIMULATOR_TABLE: readonly { channel: Channel; recipient: string; scenario: Scenario }[] = [
  ...EMAIL_SCENARIOS.map((scenario) => ({ channel: 'email' as const, recipient: `${scenario.name}@${SIMULATOR_EMAIL_DOMAIN}`, scenario })),
  ...(['sms', 'whatsapp'] as const).flatMap((channel) => Object.entries(NUMBER_SCENARIOS[channel]).map(([digit, scenario]) => ({
    channel, recipient: `+${SIMULATOR_NUMBER_PREFIX}${digit}xx`, scenario,
  }))),
];

/**
 * The scenario of a simulator recipient, or undefined for any other recipient (which is
 * sent for real). An email address at the simulator domain with an unknown name, or a
 * number of the range whose hundreds digit means nothing, is the `delivered` scenario:
 * nothing under the reserved names ever reaches a transport.
 */
export function simulatorScenario(channel: Channel, recipient: string): Scenario | undefined {
  if (channel === 'email') {
    const at = recipient.lastIndexOf('@');
    if (at < 0 || recipient.slice(at + 1).toLowerCase() !== SIMULATOR_EMAIL_DOMAIN) return undefined;
    const name = recipient.slice(0, at).split('+')[0]?.toLowerCase();
    return EMAIL_SCENARIOS.find((s) => s.name === name) ?? EMAIL_SCENARIOS[0];
  }
  const digits = recipient.replace(/^\+/, '');
  if (!digits.startsWith(SIMULATOR_NUMBER_PREFIX) || digits.length !== SIMULATOR_NUMBER_PREFIX.length + 3) return undefined;
  const scenarios = NUMBER_SCENARIOS[channel];
  return scenarios[digits.charAt(SIMULATOR_NUMBER_PREFIX.length)] ?? scenarios['1'];
}

export function isSimulatorRecipient(channel: Channel, recipient: string): boolean {
  return simulatorScenario(channel, recipient) !== undefined;
}
