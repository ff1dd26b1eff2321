import type { preValidationAsyncHookHandler } from 'fastify';
import { contactBodyEmail } from '../app/contacts.ts';
import { RejectionError } from '../domain/result.ts';

// The routes whose bodies are checked by hand rather than by their route schema, in one
// place, each with why. The validator compiler (input-validation.ts) leaves them to
// their handlers; every other body and query string of /v1 and /admin/v1 is checked by
// Fastify against its TypeBox schema before the handler runs.
//
// The interface's own sends: ../shared/spec/interface-v1.md fixes their error texts and
// the order they are found in, which a schema cannot say; they parse in domain/
// (email-request.ts, sms-request.ts, whatsapp-request.ts, whatsapp-session-request.ts)
// and their schemas (schemas/sends.ts) are plain JSON Schema, documentation only.
export const INTERFACE_SENDS = ['POST /v1/email', 'POST /v1/sms/send', 'POST /v1/whatsapp/sendTemplateMessage', 'POST /v1/whatsapp/sendMessage'] as const;

/**
 * Routes whose body the interface's texts check first, then their schema: a contact's
 * address is `Email missing or empty!` or `The email address has the wrong structure!`
 * (the suppression list's words) before any other field is looked at, which a schema
 * cannot say. Run as the route's preValidation hook, ahead of Fastify's schema check.
 */
export const INTERFACE_TEXTS_FIRST: Readonly<Record<string, string>> = {
  'POST /v1/contacts': 'the address, required (app/contacts.ts contactBodyEmail)',
  'PATCH /v1/contacts/:contact_id': 'the address, when given (app/contacts.ts contactBodyEmail)',
};

/** The preValidation hook of a contact's body: its address, by the interface's texts (`required`: on creation). */
export function contactAddressFirst(required: boolean): preValidationAsyncHookHandler {
  return async (request) => {
    const email = contactBodyEmail(request.body, required);
    // Answered by failed-request.ts as a validator's refusal is.
    if (!email.ok) throw new RejectionError(email.rejection);
  };
}

/**
 * herald's own bodies still checked by their use cases, and why a route schema cannot
 * give the same answers (texts and the order they are found in). Their schemas document.
 */
export const HAND_CHECKED_BODIES: Readonly<Record<string, string>> = {
  // The content fields are the email send's and are read by its parser (domain/email-request.ts)
  // with the interface's texts (`Missing from address!`, `Missing subject!`, …), before the
  // campaign's own fields; a schema would name the first wrong field in its own words.
  'POST /v1/campaigns': 'interface texts first (app/campaigns.ts createCampaign)',
  // As above, on the content merged with the stored campaign's; and the campaign is looked up
  // first (404 before 400), its state deciding which fields may change (the audience only in a draft).
  'PATCH /v1/campaigns/:campaign_id': 'checked after the lookup, in the campaign\'s state (app/campaigns.ts patchCampaign)',
  // The filter is a tree checked node by node, with budgets (nodes, depth, conditions), the
  // detail naming the node in words of its own (`filter.and[1].gt must be an ISO-8601 time`), after
  // the rest of the body; the schema documents the tree (FilterSchema).
  'POST /v1/segments/count': 'the filter node by node (campaigns/segment-filter.ts parseSegmentRequest)',
};

// Query strings and path parameters still read by their handlers (their schemas are plain
// JSON Schema, documentation only), each because a schema check would change an answer:
// - GET /v1/campaigns?status: an empty `status=` is refused (400) today, and the query
//   validator (input-validation.ts) reads an empty parameter as absent;
// - GET /v1/email/:msgid/certificate?format: a hint beside Accept, never refused (a value
//   other than html or json, or a repeated one, falls back to Accept);
// - POST /v1/contacts/imports?list_id: a repeated list_id is ignored, which a string schema
//   would refuse, and before the import's media type and size are answered;
// - path ids: one that is not a UUID is 404 (no such thing), which `format: uuid` would make 400.

/** Whether `METHOD url` (Fastify's route url, `:param` form) is checked by hand. */
export function checkedByHand(method: string, url: string): boolean {
  const route = `${method} ${url}`;
  return (INTERFACE_SENDS as readonly string[]).includes(route) || route in HAND_CHECKED_BODIES;
}
