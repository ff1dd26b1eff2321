// Every operation of /v1 and /admin/v1 that takes a JSON body or a typed query, found
// by walking the OpenAPI document, refuses one malformed input (a required field of
// the wrong type, or an unknown field where the schema allows none) with a 400 in
// herald's documented error shape, `{message, detail?}` (http/schemas/errors.ts). The
// interface's own sends are left out: their hand checks, texts and order are the spec's.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { campaignBody, createCampaign, makeList } from '../support/campaigns.ts';
import { ADMIN_TOKEN } from '../support/service.ts';
import { signedInUser, usersWorld } from '../support/users.ts';

type Schema = { type?: string | string[]; anyOf?: Schema[]; const?: unknown; enum?: unknown[]; required?: string[]; properties?: Record<string, Schema>; additionalProperties?: unknown };
type Operation = { requestBody?: { content?: Record<string, { schema?: Schema }> }; parameters?: { in: string; name: string; schema?: Schema }[] };

/** The interface's own operations (../shared/spec/interface-v1.md): hand-checked in domain/, out of this walk. */
const INTERFACE_SENDS = ['POST /v1/email', 'POST /v1/sms/send', 'POST /v1/whatsapp/sendTemplateMessage', 'POST /v1/whatsapp/sendMessage'];
/** `format` is a hint: a value other than html is answered as JSON, so no query of it is malformed. */
const NO_MALFORMED_QUERY = ['GET /v1/email/{msgid}/certificate'];

const INVALID = 'Invalid request, a field has the wrong type or value';
const invalid = (detail: string) => ({ message: INVALID, detail });

const EXPECTED: Record<string, { message: string; detail?: string }> = {
  // The batches' items are the interface's sends; the batch itself is an array, checked first.
  'POST /v1/email/batch': invalid('the body must be an array of 1 to 500 emails'),
  'POST /v1/sms/batch': invalid('the body must be an array of 1 to 500 SMS sends'),
  'PATCH /v1/me': invalid('locale has the wrong type or value'),
  'POST /v1/me/password': invalid('current_password must be a string'),
  'DELETE /v1/me/totp': invalid('code must be a string'),
  'POST /v1/me/totp/confirm': invalid('code must be a string'),
  'POST /v1/users': invalid('email must be a string'),
  'PATCH /v1/users/{userId}': invalid('role must be one of: owner, developer, viewer'),
  'GET /v1/messages': invalid('status must be one of queued, sending, deferred, sent, delivered, failed, bounced, dropped, scheduled, cancelled'),
  'PATCH /v1/messages/{msgid}/schedule': invalid('send_at must be a string'),
  'GET /v1/api-keys/{keyId}/requests': invalid('limit must be a whole number from 1 to 200'),
  'GET /v1/conversations': invalid('limit must be a whole number from 1 to 100'),
  'GET /v1/conversations/{person}': invalid('limit must be a whole number from 1 to 200'),
  'POST /v1/email/templates': invalid('name: must be a non-empty string of at most 200 characters, without control characters'),
  'POST /v1/email/templates/render': invalid('herald_unknown_field: unknown field'),
  'POST /v1/whatsapp/templates': invalid('name must be 1 to 512 lowercase letters, digits and underscores'),
  'PUT /v1/email/templates/{template_id}': invalid('name: must be a non-empty string of at most 200 characters, without control characters'),
  'POST /v1/domains': invalid('domain: must be a host name with a dot, e.g. example.com'),
  'POST /v1/receiving-domains': invalid('domain must be a string'),
  'PUT /v1/receiving-domains/{id}/rules': invalid('rules must be an array'),
  'GET /v1/suppressions': invalid('limit must be a whole number from 1 to 500'),
  'POST /v1/suppressions': { message: 'Email missing or empty!' },
  'PUT /v1/webhooks': invalid('url: must be null or an http(s) URL'),
  'GET /v1/webhooks/deliveries': invalid('status must be one of pending, succeeded, failed'),
  'POST /v1/webhooks/deliveries/retry-failed': invalid('since: must be an ISO-8601 time or epoch milliseconds'),
  'POST /v1/webhooks/endpoints': invalid('url must be a string'),
  'PATCH /v1/webhooks/endpoints/{id}': invalid('herald_unknown_field is not a field of this request'),
  'POST /v1/webhooks/endpoints/{id}/test': invalid('type must be one of: webhook.test, email.sent, email.delivered, email.deferred, email.bounced, email.failed, email.dropped, email.opened, email.clicked, email.unsubscribed, email.complained, email.certified, email.received, email.scheduled, email.cancelled, sms.sent, sms.delivered, sms.failed, sms.dropped, sms.received, sms.opted_out, sms.opted_in, sms.scheduled, sms.cancelled, whatsapp.sent, whatsapp.delivered, whatsapp.read, whatsapp.failed, whatsapp.dropped, whatsapp.received, whatsapp.opted_out, whatsapp.opted_in, whatsapp.scheduled, whatsapp.cancelled'),
  'GET /v1/webhooks/endpoints/{id}/deliveries': invalid('status must be one of pending, succeeded, failed'),
  'POST /v1/webhooks/endpoints/{id}/deliveries/retry-failed': invalid('since: must be an ISO-8601 time or epoch milliseconds'),
  'POST /v1/lists': invalid('name must be a string'),
  'PATCH /v1/lists/{list_id}': invalid('herald_unknown_field is not a field of this request'),
  'POST /v1/contacts': invalid('email must be a string'),
  'PATCH /v1/contacts/{contact_id}': invalid('herald_unknown_field is not a field of this request'),
  'POST /v1/segments/count': invalid('lists must be an array'),
  'POST /v1/segments/sample': invalid('lists must be an array'),
  'POST /v1/segments': invalid('name must be a string'),
  'PUT /v1/segments/{segment_id}': invalid('name must be a string'),
  'POST /v1/campaigns': { message: 'Missing from address!' },
  'GET /v1/campaigns': invalid('status must be one of: draft, scheduled, running, paused, finished, cancelled'),
  'PATCH /v1/campaigns/{campaign_id}': invalid('herald_unknown_field is not a field of this request'),
  'POST /v1/campaigns/{campaign_id}/test': invalid('emails must be an array'),
  'POST /v1/campaigns/{campaign_id}/resend': invalid('to must be one of: not_opened, not_clicked'),
  'GET /v1/campaigns/{campaign_id}/stats/timeline': invalid('interval must be one of: hour, day'),
  'PATCH /v1/account': invalid('herald_unknown_field: unknown field'),
  'POST /v1/api-keys': invalid('name: must be 1 to 200 characters, without control characters'),
  'GET /v1/usage': invalid('days must be a whole number from 1 to 90'),
  'GET /v1/ledger': invalid('limit must be a whole number from 1 to 500'),
  'GET /v1/inbound': invalid('channel must be email, sms or whatsapp'),
  'POST /v1/sandbox/inbound': invalid('channel must be email, sms or whatsapp'),
  'GET /v1/consent/export': invalid('format must be csv or json'),
  'POST /v1/consent': invalid('channel must be email, sms or whatsapp'),
  'PUT /v1/sms/keywords': invalid('herald_unknown_field is not a field of this request'),
  'POST /v1/contacts/imports': { message: 'A JSON import must be an array of contacts' },
  'POST /v1/auth/sign-in': invalid('email must be a string'),
  'POST /v1/auth/invitation': invalid('token must be a string'),
  'POST /v1/auth/invitation/accept': invalid('token must be a string'),
  'POST /v1/auth/password-reset': invalid('email must be a string'),
  'POST /v1/auth/password-reset/complete': invalid('token must be a string'),
  'POST /admin/v1/session': invalid('token must be a string'),
  'GET /admin/v1/inbound-reports': invalid('limit: must be a whole number from 1 to 200'),
  'GET /admin/v1/unrouted-inbound': invalid('limit: must be a whole number from 1 to 200'),
  'POST /admin/v1/accounts/{id}/users': invalid('email: must be a string'),
  'GET /admin/v1/accounts': invalid('limit: must be a whole number from 1 to 200'),
  'POST /admin/v1/accounts': invalid('name: must be 1 to 200 characters, without control characters'),
  'POST /admin/v1/accounts/{id}/top-ups': invalid('reason: must be a string'),
  'PATCH /admin/v1/accounts/{id}': invalid('herald_unknown_field: unknown field'),
  'POST /admin/v1/accounts/{id}/api-keys': invalid('herald_unknown_field: unknown field'),
  'POST /admin/v1/accounts/{id}/domains': invalid('domain: must be a host name with a dot, e.g. example.com'),
  'POST /admin/v1/accounts/{id}/whatsapp-templates': invalid('name: must be 1 to 512 characters, without control characters'),
};

/** A value of another type than the schema's: a number for text, text for anything else. */
function wrongValue(schema: Schema | undefined): unknown {
  const types = schema?.anyOf?.map((s) => s.type ?? typeof s.const) ?? [Array.isArray(schema?.type) ? schema.type[0] : schema?.type];
  return types.every((type) => type === 'string') ? 12345 : 'not-a-value';
}

/** Every required field of the wrong type; without any, an unknown field (or a known one of the wrong type where unknown ones pass). */
function malformedBody(schema: Schema): Record<string, unknown> {
  const required = schema.required ?? [];
  if (required.length > 0) return Object.fromEntries(required.map((field) => [field, wrongValue(schema.properties?.[field])]));
  const [known] = Object.keys(schema.properties ?? {});
  if (schema.additionalProperties === false || known === undefined) return { herald_unknown_field: true };
  return { [known]: wrongValue(schema.properties?.[known]) };
}

/** A query parameter that can be malformed: a number, a choice or a yes/no. */
const typedQuery = (op: Operation) =>
  (op.parameters ?? []).find((p) => p.in === 'query' && (p.schema?.type === 'integer' || p.schema?.enum !== undefined || p.schema?.type === 'boolean' || p.schema?.anyOf !== undefined));

interface Walk {
  readonly answers: Record<string, unknown>;
  readonly leftOut: string[];
}

/** Sends one malformed input to every walkable operation, as an owner's session (/v1) or the operator (/admin/v1). */
async function walk(t: TestContext): Promise<Walk> {
  const world = await usersWorld(t, { env: { HERALD_SESSION_RATE_LIMIT: '1000' } });
  const { service } = world;
  const owner = await signedInUser(world, 'owner@example.com', 'owner');
  // A campaign is looked up before its changes are read: this one exists.
  const campaignId = await createCampaign(world, campaignBody([await makeList(world, 'News')]));
  const doc = (await service.http.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
  const answers: Record<string, unknown> = {};
  const leftOut: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/') && !path.startsWith('/admin/v1/')) continue;
    for (const [method, op] of Object.entries(item)) {
      const route = `${method.toUpperCase()} ${path}`;
      const body = op.requestBody?.content?.['application/json']?.schema;
      const query = typedQuery(op);
      if (body === undefined && query === undefined) continue;
      if (INTERFACE_SENDS.includes(route) || (body === undefined && NO_MALFORMED_QUERY.includes(route))) {
        leftOut.push(route);
        continue;
      }
      const url = path.replace('{campaign_id}', campaignId).replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const operator = path.startsWith('/admin/');
      const res = await service.http.inject({
        method: method.toUpperCase() as 'GET',
        url: body === undefined && query !== undefined ? `${url}?${query.name}=not-a-value` : url,
        headers: {
          ...(operator ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'x-csrf-token': owner.csrf }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        cookies: operator ? {} : { herald_session: owner.cookie },
        ...(body === undefined ? {} : { payload: JSON.stringify(malformedBody(body)) }),
      });
      answers[route] = { status: res.statusCode, body: res.json() };
    }
  }
  return { answers, leftOut };
}

test('every operation with a body or a typed query answers a malformed one with 400 and herald\'s error body', async (t) => {
  const { answers } = await walk(t);
  const expected = Object.fromEntries(Object.entries(EXPECTED).map(([route, body]) => [route, { status: 400, body }]));
  assert.deepStrictEqual(answers, expected);
});

test('the walk reaches both APIs\' operations and leaves out only the interface\'s sends and the certificate\'s format hint', async (t) => {
  const { answers, leftOut } = await walk(t);
  const routes = Object.keys(answers);
  assert.equal(routes.filter((route) => route.includes(' /v1/')).length, 59);
  assert.equal(routes.filter((route) => route.includes(' /admin/v1/')).length, 11);
  assert.deepStrictEqual(leftOut.sort(), [...INTERFACE_SENDS, ...NO_MALFORMED_QUERY].sort());
});
