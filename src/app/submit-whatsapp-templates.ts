import type { SubmitAnswer, TemplateToSubmit } from '../channels/whatsapp/cloud-api-templates.ts';
import { findWhatsappBusiness } from '../store/accounts.ts';
import type { Db } from '../store/database.ts';
import {
  claimWhatsappTemplate, queuedWhatsappTemplates, recordWhatsappSubmission, requeueStaleWhatsappSubmissions,
  WHATSAPP_TEMPLATE_STATUSES, type SubmissionOutcome, type WhatsappTemplateStatus,
} from '../store/whatsapp-templates.ts';

// The job that submits the templates accounts create to Meta (docs/whatsapp-templates.md):
// the request that created a template only queued it, since nothing on the request path
// talks to a remote peer. Each turn takes a few queued templates, one at a time.

export const WHATSAPP_TEMPLATE_SUBMIT_MS = 2000;
/** Templates submitted per turn: a turn's work stays bounded. */
const PER_TURN = 10;
/** A failed try (no answer, 429, 5xx) waits this long before the next. */
export const WHATSAPP_TEMPLATE_RETRY_MS = 60_000;
/** A `submitting` row this old was left by a process that stopped mid-request. */
const STALE_MS = 5 * 60_000;

export interface TemplateSubmitDeps {
  readonly db: Db;
  readonly clock: () => number;
  readonly submit: (businessAccountId: string, accessToken: string, template: TemplateToSubmit, signal: AbortSignal) => Promise<SubmitAnswer>;
}

const statusOf = (answered: string): WhatsappTemplateStatus =>
  WHATSAPP_TEMPLATE_STATUSES.find((s) => s === answered) ?? 'PENDING';

function outcomeOf(answer: SubmitAnswer): SubmissionOutcome {
  switch (answer.kind) {
    case 'accepted': return { submission: 'submitted', status: statusOf(answer.status), metaTemplateId: answer.id, submissionError: null };
    case 'refused': return { submission: 'refused', status: 'REJECTED', submissionError: answer.reason };
    default: return { submission: 'queued', submissionError: answer.reason };
  }
}

/** One turn: submits what is queued; returns how many templates Meta answered for. */
export async function submitQueuedWhatsappTemplates(deps: TemplateSubmitDeps, signal: AbortSignal): Promise<number> {
  const now = deps.clock();
  await requeueStaleWhatsappSubmissions(deps.db, now - STALE_MS, now);
  let answered = 0;
  for (const template of await queuedWhatsappTemplates(deps.db, now - WHATSAPP_TEMPLATE_RETRY_MS, PER_TURN)) {
    if (signal.aborted) break;
    if (!(await claimWhatsappTemplate(deps.db, template.id, deps.clock()))) continue;
    const business = await findWhatsappBusiness(deps.db, template.accountId);
    const answer: SubmitAnswer = business === undefined
      ? { kind: 'refused', reason: 'The account has no WhatsApp Business account id or access token' }
      : await deps.submit(business.businessAccountId, business.accessToken, template, signal);
    await recordWhatsappSubmission(deps.db, template.id, outcomeOf(answer), deps.clock());
    if (answer.kind !== 'retry') answered += 1;
  }
  return answered;
}
