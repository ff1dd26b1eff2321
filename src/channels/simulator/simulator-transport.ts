import type { Channel } from '../../domain/account.ts';
import type { Outbound } from '../../domain/outbound.ts';
import { simulatorScenario } from '../../domain/simulator.ts';
import type { Outcome, Transport } from '../channel.ts';

// The simulator (docs/sandbox.md): the "peer" of every simulator recipient, whatever
// transport is configured. A delivery attempt gets the scenario's outcome at once
// (nothing leaves the process). What the peer would report later (a delivery notice, a
// bounce, a complaint, an open, a WhatsApp read) travels with the accepting outcome:
// outbox/complete.ts stores it in the same transaction, one step delay apart, and
// outbox/simulated-reports.ts records each when due, as the real report would be.

const PEER = 'simulator';

const ACCEPTED_RESPONSE: Readonly<Record<Channel, string>> = {
  email: '250 2.0.0 Ok: queued (simulated)',
  sms: 'submit_sm_resp ESME_ROK (simulated)',
  whatsapp: 'accepted (simulated)',
};

/** The simulator as the transport of one channel; `stepMs` (HERALD_SIMULATOR_STEP_MS) between reports, and a deferral's retry. */
export function simulatorTransport<P>(channel: Channel, stepMs: number): Transport<P> {
  return { name: `${channel}-simulator`, send: (message) => Promise.resolve(attempt(channel, message, stepMs)) };
}

function attempt(channel: Channel, message: Outbound<unknown>, stepMs: number): Outcome {
  const scenario = simulatorScenario(channel, message.recipient);
  // The worker sends only simulator recipients here; anything else is refused without leaving.
  if (scenario === undefined) return { kind: 'failed', peer: PEER, response: 'not a simulator recipient', leftTheHouse: false };
  const outcome = scenario.attempts[Math.min(message.attempt, scenario.attempts.length) - 1] ?? 'sent';
  if (outcome === 'deferred') {
    return { kind: 'deferred', peer: PEER, response: '451 4.3.0 Temporary failure, try again later (simulated)', retryAfterMs: stepMs };
  }
  if (outcome === 'failed') return { kind: 'failed', peer: PEER, response: '550 5.0.0 Refused (simulated)', leftTheHouse: true };
  return { kind: 'accepted', peer: PEER, response: ACCEPTED_RESPONSE[channel], simulated: { later: scenario.later, stepMs } };
}
