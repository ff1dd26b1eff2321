import type { Channel } from '../domain/account.ts';
import type { EmailPayload } from '../domain/outbound.ts';
import type { LaterStep } from '../domain/simulator.ts';
import type { Executor } from '../store/database.ts';
import { findMessage, loadSendPayload, recordEvent, type StoredMessage } from '../store/messages.ts';
import type { SimulatedReport } from '../store/simulated-reports.ts';
import { addSuppression } from '../store/suppressions.ts';
import { leaveEveryList } from './campaign-consent.ts';
import { emailBodiesOf } from './email-bodies.ts';
import type { AppDeps } from './deps.ts';

// What a simulator recipient's "peer" reports after it took the message, recorded
// exactly as the real report would be — the same status transition through
// recordEvent, the same suppression for a hard bounce, a complaint or an unsubscribe —
// so the webhooks that follow are the real ones (marked `simulated: true` by the
// webhook producer, from the recipient). Runs in the unit of work of
// outbox/simulated-reports.ts, which removes the report with it.

const PEER = 'simulator';

/** Where a simulated click leads when the email has no link of its own. */
export const SIMULATED_CLICK_URL = 'https://simulator.herald.test/clicked';

/** A documentation address (RFC 5737), so no simulated open or click poses as a real client. */
const CLIENT = { ip: '192.0.2.1', user_agent: 'herald-simulator' } as const;

/** Records one report; a message that no longer exists (erased with its account) records nothing. */
export async function recordSimulatedStep(tx: Executor, deps: Pick<AppDeps, 'newId'>, report: SimulatedReport, at: number): Promise<void> {
  const message = await findMessage(tx, report.accountId, report.messageId);
  if (message === undefined) return;
  const clickUrl = report.step === 'clicked' ? await firstLink(tx, message) : undefined;
  await write(tx, deps, message, report.step, at, clickUrl);
}

async function write(tx: Executor, deps: Pick<AppDeps, 'newId'>, message: StoredMessage, step: LaterStep, at: number, clickUrl: string | undefined): Promise<void> {
  const messageId = message.id;
  type Data = Readonly<Record<string, unknown>>;
  // A status transition (with its event, `read` being WhatsApp's event on a delivered message), or an event alone.
  const move = (status: 'delivered' | 'bounced' | 'failed', data: Data, type?: string) =>
    recordEvent(tx, { messageId, eventId: deps.newId(), at, status, data, ...(type === undefined ? {} : { type }) });
  const note = (type: string, data: Data) => recordEvent(tx, { messageId, eventId: deps.newId(), at, type, data });
  const suppress = (reason: 'bounced' | 'complained' | 'unsubscribed') =>
    addSuppression(tx, { accountId: message.accountId, address: message.recipient, reason, messageId, at });
  switch (step) {
    case 'delivered':
      await move('delivered', { peer: PEER, response: DELIVERED_RESPONSE[message.channel] });
      return;
    case 'read':
      await move('delivered', { peer: PEER, response: 'read (simulated)' }, 'read');
      return;
    case 'failed':
      await move('failed', { peer: PEER, response: FAILED_RESPONSE[message.channel] });
      return;
    case 'bounced':
      // As a DSN's hard bounce: the address is suppressed, so the next send to it is dropped.
      await suppress('bounced');
      await move('bounced', { bounce_type: 'hard', status_code: '5.1.1', diagnostic: 'smtp; 550 5.1.1 The email account does not exist (simulated)', source: 'simulator' });
      return;
    case 'complained':
      await suppress('complained');
      await note('complained', { feedback_type: 'abuse', user_agent: 'herald-simulator', arrival_date: new Date(at).toISOString(), reporting_mta: null, source: 'simulator' });
      await leaveEveryList(deps, tx, messageId, at);
      return;
    case 'unsubscribed':
      if (await suppress('unsubscribed')) await note('unsubscribed', { via: 'one-click', ...CLIENT });
      return;
    case 'opened':
      await note('opened', { machine: false, ...CLIENT });
      return;
    case 'clicked':
      await note('clicked', { url: clickUrl ?? SIMULATED_CLICK_URL, machine: false, ...CLIENT });
      return;
  }
}

const DELIVERED_RESPONSE: Readonly<Record<Channel, string>> = {
  email: '250 2.0.0 Message delivered (simulated)',
  sms: 'stat:DELIVRD (simulated)',
  whatsapp: 'delivered (simulated)',
};

const FAILED_RESPONSE: Readonly<Record<Channel, string>> = {
  email: '550 5.0.0 Message failed (simulated)',
  sms: 'stat:UNDELIV err:001 (simulated)',
  whatsapp: '131026 Message undeliverable (simulated)',
};

/** The first http(s) link of the email's HTML, as a recipient would follow it. */
async function firstLink(db: Executor, message: StoredMessage): Promise<string | undefined> {
  const payload = (await loadSendPayload(db, message.sendId)) as EmailPayload;
  const { html } = await emailBodiesOf(payload);
  return /href\s*=\s*"(https?:\/\/[^"]{1,2000})"/i.exec(html ?? '')?.[1];
}
