import type { LaterStep } from '../domain/simulator.ts';
import type { Executor } from './database.ts';
import { insertAll, insertRows } from './prepared-statement.ts';

// The simulator's later reports (docs/sandbox.md): written with the accepting outcome of
// a simulator recipient's message (outbox/complete.ts), leased when due and removed with
// the event they record (queue/simulated-reports/claim.ts). The lease pattern of the outbox.

export interface SimulatedReport {
  readonly id: string;
  readonly messageId: string;
  readonly accountId: string;
  readonly step: LaterStep;
}

const REPORTS = insertRows('simulated_reports', ['id', 'message_id', 'account_id', 'step', 'due_at']);

/** The reports of one message, each `stepMs` after the one before, the first `stepMs` after `now`. */
export async function insertSimulatedReports(
  tx: Executor,
  message: { id: string; accountId: string },
  steps: readonly LaterStep[],
  timing: { now: number; stepMs: number; newId: () => string },
): Promise<void> {
  await insertAll(tx, REPORTS, steps.map((step, index) => [timing.newId(), message.id, message.accountId, step, timing.now + (index + 1) * timing.stepMs]));
}
