import type { RouteAccess } from '../domain/access.ts';
import type { TestKeyRule } from '../domain/key-mode.ts';
import type { Rejection } from '../domain/result.ts';

// What a test key may do on each /v1 route (docs/sandbox.md, "What a test key may
// change"): it reads everything its scopes allow, and writes only in the sandbox. A
// route of `read` access, or a GET, only reads; every other route is named here, in
// one table a reviewer reads at once, and a /v1 route that writes and is missing from
// it fails at start (declareRouteAccess), so a route added later is decided, not
// let through.

const WRITES: Readonly<Record<string, TestKeyRule>> = {
  // Test messages: captured, never billed.
  'POST /v1/email': 'allowed',
  'POST /v1/sms/send': 'allowed',
  'POST /v1/whatsapp/sendTemplateMessage': 'allowed',
  'POST /v1/whatsapp/sendMessage': 'allowed',
  'POST /v1/email/batch': 'allowed',
  'POST /v1/sms/batch': 'allowed',
  // A scheduled message: a test key cancels and moves its own (test) ones only.
  'DELETE /v1/messages/:msgid/schedule': 'test-only',
  'PATCH /v1/messages/:msgid/schedule': 'test-only',
  // The working data live and test keys share.
  'POST /v1/email/templates': 'allowed',
  'PUT /v1/email/templates/:template_id': 'allowed',
  'DELETE /v1/email/templates/:template_id': 'allowed',
  'POST /v1/lists': 'allowed',
  'PATCH /v1/lists/:list_id': 'allowed',
  'DELETE /v1/lists/:list_id': 'allowed',
  'POST /v1/segments': 'allowed',
  'PUT /v1/segments/:segment_id': 'allowed',
  'DELETE /v1/segments/:segment_id': 'allowed',
  // A double opt-in list's confirmation emails of a test key are test messages.
  'POST /v1/contacts': 'allowed',
  'PATCH /v1/contacts/:contact_id': 'allowed',
  'DELETE /v1/contacts/:contact_id': 'allowed',
  'POST /v1/contacts/imports': 'allowed',
  // Adding a suppression only holds email back; removing one lets live email through: simulator addresses only.
  'POST /v1/suppressions': 'allowed',
  'DELETE /v1/suppressions/:email': 'test-only',
  // A test key's campaign is a test campaign; a campaign's test send is test messages.
  'POST /v1/campaigns': 'allowed',
  'POST /v1/campaigns/:campaign_id/test': 'allowed',
  'PATCH /v1/campaigns/:campaign_id': 'test-only',
  'DELETE /v1/campaigns/:campaign_id': 'test-only',
  'POST /v1/campaigns/:campaign_id/send': 'test-only',
  'POST /v1/campaigns/:campaign_id/pause': 'test-only',
  'POST /v1/campaigns/:campaign_id/resume': 'test-only',
  'POST /v1/campaigns/:campaign_id/cancel': 'test-only',
  'POST /v1/campaigns/:campaign_id/resend': 'test-only',
  // Keys: a test key makes and revokes test keys only.
  'POST /v1/api-keys': 'test-only',
  'DELETE /v1/api-keys/:keyId': 'test-only',
  // A test event to the account's endpoint (marked as a test by its type).
  'POST /v1/webhooks/test': 'allowed',
  'POST /v1/webhooks/endpoints/:id/test': 'allowed',
  // A simulated inbound message: from a simulator number or address only, posted as a test.
  'POST /v1/sandbox/inbound': 'allowed',
  // The account's settings and live deliveries.
  'POST /v1/consent': 'refused',
  // Submitted to Meta for approval: outside the sandbox.
  'POST /v1/whatsapp/templates': 'refused',
  'PUT /v1/sms/keywords': 'refused',
  'PUT /v1/webhooks': 'refused',
  'POST /v1/webhooks/secret/rotate': 'refused',
  'POST /v1/webhooks/deliveries/:id/retry': 'refused',
  'POST /v1/webhooks/deliveries/retry-failed': 'refused',
  'POST /v1/webhooks/endpoints': 'refused',
  'PATCH /v1/webhooks/endpoints/:id': 'refused',
  'DELETE /v1/webhooks/endpoints/:id': 'refused',
  'POST /v1/webhooks/endpoints/:id/secret/rotate': 'refused',
  'POST /v1/webhooks/endpoints/:id/deliveries/retry-failed': 'refused',
  'POST /v1/domains': 'refused',
  'POST /v1/domains/:domain/verify': 'refused',
  'DELETE /v1/domains/:domain': 'refused',
  'POST /v1/receiving-domains': 'refused',
  'POST /v1/receiving-domains/:id/verify': 'refused',
  'PUT /v1/receiving-domains/:id/rules': 'refused',
  'DELETE /v1/receiving-domains/:id': 'refused',
  'PATCH /v1/account': 'refused',
  'POST /v1/users': 'refused',
  'PATCH /v1/users/:userId': 'refused',
  'DELETE /v1/users/:userId': 'refused',
};

/** The rule of a route; undefined for a route that writes and is not in the table. */
export function testKeyRuleOf(method: string, url: string, need: RouteAccess): TestKeyRule | undefined {
  if (need.access === 'read' || method === 'GET' || method === 'HEAD') return 'allowed';
  return WRITES[`${method} ${url}`];
}

/** The refusal of a test key, with why. */
export const testKeyRefusal = (detail: string): Rejection => ({ code: 'testKeyRefused', detail });

export const REFUSED_DETAIL = 'a test key may read, and write only in the sandbox: this changes the account\'s settings or something live; use a live key';
