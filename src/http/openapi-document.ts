// The finishing pass over the OpenAPI document @fastify/swagger builds from the
// routes' schemas (its `transformObject`): what makes it a contract a generator and
// `redocly lint` accept, stated once here instead of on each of ~130 routes, so a
// route added later gets it too. The routes keep declaring their own bodies and the
// answers particular to them; this pass adds what every route of a kind answers.
import type { OpenAPIV3_1 } from 'openapi-types';
import { applicationError, authenticationError, rateLimitError } from './schemas/errors.ts';

type Document = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;
type Schema = Record<string, unknown>;

/** Paths a recipient's mail client or Meta calls, never an integrator: left out of the public document. */
const INTERNAL_PATHS = [/^\/t\//, /^\/u\//, /^\/confirm\//, /^\/webhooks\/whatsapp$/];

/** Names a generated client shows for the operations everybody calls; the rest are derived from method and path. */
const OPERATION_IDS: Readonly<Record<string, string>> = {
  'POST /v1/email': 'sendEmail',
  'POST /v1/sms/send': 'sendSms',
  'POST /v1/whatsapp/sendTemplateMessage': 'sendWhatsappTemplate',
  'POST /v1/whatsapp/sendMessage': 'sendWhatsappMessage',
  'POST /v1/email/batch': 'sendEmailBatch',
  'POST /v1/sms/batch': 'sendSmsBatch',
  'GET /v1/messages': 'listMessages',
  'GET /v1/messages/{msgid}': 'getMessage',
  'GET /v1/messages/{msgid}/raw': 'getMessageRaw',
  'GET /v1/messages/{msgid}/preview': 'getMessagePreview',
  'POST /v1/email/templates/render': 'renderEmailTemplate',
  'GET /v1/email/{msgid}/certificate': 'getEmailCertificate',
  'GET /v1/email/{msgid}/certificate.eml': 'getEmailCertificateMessage',
  'POST /v1/domains/{domain}/verify': 'verifyDomain',
  'POST /v1/webhooks/secret/rotate': 'rotateWebhookSecret',
  'POST /v1/webhooks/test': 'sendTestWebhook',
  'POST /v1/webhooks/deliveries/{id}/retry': 'retryWebhookDelivery',
  'POST /v1/webhooks/deliveries/retry-failed': 'retryFailedWebhookDeliveries',
  'GET /v1/webhooks': 'getWebhookSettings',
  'PUT /v1/webhooks': 'setWebhookSettings',
  'GET /v1/suppressions/export': 'exportSuppressions',
  'GET /v1/smtp-settings': 'getSmtpSettings',
  'POST /v1/contacts/imports': 'importContacts',
  'POST /v1/auth/sign-in': 'signIn',
  'POST /v1/auth/sign-out': 'signOut',
  'GET /.well-known/jwks.json': 'getCertificateKeys',
};

const VERB: Readonly<Record<string, string>> = { get: 'get', post: 'create', put: 'replace', patch: 'update', delete: 'delete' };

const isParam = (segment: string | undefined): boolean => segment?.startsWith('{') === true;
const singular = (word: string): string => (word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);
const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
/** `api-keys` → ApiKeys, `sendTemplateMessage` → SendTemplateMessage. */
const pascal = (segment: string): string => segment.split(/[^A-Za-z0-9]+/).filter(Boolean).map(capital).join('');
const camel = (segment: string): string => { const p = pascal(segment); return p.charAt(0).toLowerCase() + p.slice(1); };

/**
 * The name a generated client shows when OPERATION_IDS has none: the verb (a GET of a
 * collection lists it, a POST to `…/{id}/send` sends it), then the path's words without
 * version and parameters, a word before a parameter made singular:
 * `GET /v1/campaigns/{campaign_id}/stats` → getCampaignStats. Operator operations start
 * with `admin`, so they never clash with an account's.
 */
export function derivedOperationId(method: string, path: string): string {
  const all = path.split('/').filter((s) => s !== '' && !/^v\d+$/.test(s) && !s.startsWith('.'));
  const admin = all[0] === 'admin';
  const segments = admin ? all.slice(1) : all;
  const last = segments.at(-1);
  const action = method === 'post' && last !== undefined && !isParam(last) && isParam(segments.at(-2));
  const nouns = (action ? segments.slice(0, -1) : segments).flatMap((segment, i, list) => {
    if (isParam(segment)) return [];
    const lastNoun = i === list.length - 1;
    return [pascal(isParam(list[i + 1]) || (lastNoun && method === 'post' && !action) ? singular(segment) : segment)];
  });
  const listing = method === 'get' && last !== undefined && !isParam(last) && !isParam(segments.at(-2)) && last.endsWith('s');
  const verb = action ? camel(last ?? 'create') : listing ? 'list' : VERB[method] ?? method;
  const id = `${verb}${nouns.join('')}`;
  return admin ? `admin${capital(id)}` : id;
}

const json = (description: string, schema: Schema): OpenAPIV3_1.ResponseObject => ({ description, content: { 'application/json': { schema } } });

/** Adds the answer for `status`, or widens the one the route declared to either shape. */
function addAnswer(op: Operation, status: string, answer: OpenAPIV3_1.ResponseObject): void {
  const responses = (op.responses ??= {}) as Record<string, OpenAPIV3_1.ResponseObject>;
  const existing = responses[status];
  if (existing === undefined) {
    responses[status] = answer;
    return;
  }
  // A route's own answer for the status keeps the shared one's headers (the outage's Retry-After).
  if (answer.headers !== undefined) existing.headers = { ...answer.headers, ...existing.headers };
  const had = existing.content?.['application/json']?.schema as Schema | undefined;
  const adds = answer.content?.['application/json']?.schema as Schema | undefined;
  if (had === undefined || adds === undefined || JSON.stringify(had) === JSON.stringify(adds)) return;
  const options = Array.isArray(had.anyOf) ? (had.anyOf as Schema[]) : [had];
  if (options.some((s) => JSON.stringify(s) === JSON.stringify(adds))) return;
  existing.content = { ...existing.content, 'application/json': { schema: { anyOf: [...options, adds] } } };
}

const plain = (schema: Schema): Schema => {
  const { description: _dropped, ...rest } = schema;
  return rest;
};

/** What every authenticated /v1 operation can answer, whatever it does. */
function addAccountApiAnswers(op: Operation): void {
  addAnswer(op, '403', json('No API key (or session), an invalid or expired one, or an address outside the account\'s allow-list; `CSRF token missing or invalid` for a session\'s change without its token', plain(authenticationError)));
  addAnswer(op, '429', json('Request rate above the account\'s limit (`Retry-After` says when to retry)', plain(rateLimitError)));
}

/** What every operation that reads a JSON body can answer before it runs. */
function addBodyAnswers(op: Operation): void {
  addAnswer(op, '400', json('The body is not JSON, or not UTF-8, or nested or sized past the parser\'s bounds', plain(applicationError)));
  addAnswer(op, '413', json('Request body is too large (README "Limits")', plain(applicationError)));
  addAnswer(op, '415', json('Unsupported Media Type, send application/json', plain(applicationError)));
}

function addServerAnswers(op: Operation): void {
  addAnswer(op, '500', json('A failure inside the service (logged with the answer\'s x-request-id)', { anyOf: [plain(applicationError), plain(authenticationError)] }));
  addAnswer(op, '503', {
    ...json('Service temporarily unavailable, please try again: the database did not answer (or Redis, with HERALD_REDIS_FAILURE=closed); nothing was done, retry after `Retry-After` seconds', plain(applicationError)),
    headers: { 'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } } },
  });
}

/** Drops keywords of herald's own validators (ajv-errors' `errorMessage`) that are not JSON Schema. */
function withoutValidatorKeywords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutValidatorKeywords);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'errorMessage').map(([key, v]) => [key, withoutValidatorKeywords(v)]));
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface DocumentSettings {
  /** HERALD_PUBLIC_URL: where the API is reached. */
  readonly publicUrl: string;
}

export function finishDocument(built: Document, settings: DocumentSettings): Document {
  const document = withoutValidatorKeywords(built) as Document;
  document.servers = [{ url: settings.publicUrl.replace(/\/+$/, ''), description: 'This herald' }];
  document.info = { ...document.info, license: { name: 'MIT', identifier: 'MIT' } };
  const paths: Record<string, OpenAPIV3_1.PathItemObject> = {};
  const used = new Set<string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (item === undefined || INTERNAL_PATHS.some((internal) => internal.test(path))) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      let id = op.operationId ?? OPERATION_IDS[`${method.toUpperCase()} ${path}`] ?? derivedOperationId(method, path);
      for (let n = 2; used.has(id); n++) id = `${id.replace(/\d+$/, '')}${n}`;
      used.add(id);
      op.operationId = id;
      // An operation that names no scheme is public: said so, not left to a default.
      op.security ??= [];
      const authenticated = op.security.length > 0;
      if (authenticated && path.startsWith('/v1/')) addAccountApiAnswers(op);
      if (op.requestBody !== undefined) addBodyAnswers(op);
      addServerAnswers(op);
    }
    paths[path] = item;
  }
  document.paths = paths;
  // The events herald posts: signed with the account's webhook secret (the headers), no scheme of the receiver's.
  for (const [type, item] of Object.entries(document.webhooks ?? {})) {
    const op = (item as OpenAPIV3_1.PathItemObject | undefined)?.post;
    if (op === undefined) continue;
    op.operationId ??= `${type.split('.').map((w, i) => (i === 0 ? w : capital(w))).join('')}Event`;
    op.security ??= [];
  }
  return document;
}

// herald's own mark for the reference page (/docs), in place of the UI's default logo.
const MARK = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32">'
  + '<text x="0" y="24" font-family="system-ui, sans-serif" font-size="24" font-weight="700" fill="#ffffff">herald API</text></svg>';

/** @fastify/swagger-ui options: the page titled "herald API", with herald's mark and icon. */
export const referencePageLook = {
  logo: { type: 'image/svg+xml', content: Buffer.from(MARK), href: '/docs' },
  theme: {
    title: 'herald API',
    favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(MARK) }],
  },
};
