// Every bound on the work one request may ask for, as one table: what is limited, its default,
// the setting that changes it, and the answer past it. config.ts makes a setting of each row,
// the README's "Limits" section and the OpenAPI document's `x-herald-limits` are rendered
// from it (http/limits-table.ts), and the domain checks read the values in effect.
//
// Each limit is checked before the work it bounds, on what is cheapest to measure (a length,
// a count), and answered with a 400: `{ "message": <text>, "detail": "at most <value> …" }`.
// `metadata` keeps its established answer, the `Invalid request, a field has the wrong type
// or value` of herald's other own fields, with the detail naming the limit.

import type { WireCode } from './wire-texts.ts';

export interface LimitRow {
  /** The value's name in RequestLimits and Config. */
  readonly key: string;
  readonly limit: string;
  readonly default: number;
  readonly unit: string;
  readonly env: string;
  /** Smallest and largest value the setting takes. */
  readonly min: number;
  readonly max: number;
  readonly code: WireCode;
  readonly appliesTo: string;
  /** Why this default (shown in the README). */
  readonly why: string;
}

const MIB = 1024 * 1024;

export const LIMITS = [
  {
    key: 'maxEmailRecipients', limit: 'Recipients per email (`to` + `options.cc` + `options.bcc`)', default: 2000, unit: 'addresses',
    env: 'HERALD_MAX_EMAIL_RECIPIENTS', min: 1, max: 100_000, code: 'tooManyRecipients', appliesTo: 'POST /v1/email',
    why: 'Twice the 1,000 of the large email APIs (SendGrid, Mailgun): herald accepted larger lists before it had a limit. Each recipient is a message of its own.',
  },
  {
    key: 'maxAttachments', limit: 'Attachments per email', default: 20, unit: 'attachments',
    env: 'HERALD_MAX_ATTACHMENTS', min: 0, max: 1000, code: 'tooManyAttachments', appliesTo: 'POST /v1/email',
    why: 'Each URL attachment is a fetch at delivery time.',
  },
  {
    key: 'maxAttachmentBytes', limit: 'Attachments per email, total decoded size (data URIs when sent; each URL attachment when fetched)', default: 10 * MIB, unit: 'bytes',
    env: 'HERALD_MAX_ATTACHMENT_BYTES', min: 0, max: 1024 * MIB, code: 'attachmentsTooLarge', appliesTo: 'POST /v1/email',
    why: 'Base64 in MIME adds a third: about 14 MB on the wire, under the 20–25 MB most mailboxes accept.',
  },
  {
    key: 'maxSubjectLength', limit: '`subject` length, before and after its placeholders are filled', default: 2000, unit: 'characters',
    env: 'HERALD_MAX_SUBJECT_LENGTH', min: 1, max: MIB, code: 'subjectTooLong', appliesTo: 'POST /v1/email, email templates',
    why: 'A subject is one header line; mail clients show well under 200 characters.',
  },
  {
    key: 'maxTemplateLength', limit: 'Template `html` or `text` length', default: MIB, unit: 'characters',
    env: 'HERALD_MAX_TEMPLATE_LENGTH', min: 1, max: 100 * MIB, code: 'templateTooLarge', appliesTo: 'email templates',
    why: 'Ten times the 102 KB at which Gmail clips a message.',
  },
  {
    key: 'maxTemplatePlaceholders', limit: '`{{…}}` tags per template part or subject (variables, comments, `#if`, `else`, `/if`)', default: 5000, unit: 'tags',
    env: 'HERALD_MAX_TEMPLATE_PLACEHOLDERS', min: 1, max: 1_000_000, code: 'templateTooManyPlaceholders', appliesTo: 'POST /v1/email, email templates',
    why: 'Far above any hand-written template; bounds the compiled tree.',
  },
  {
    key: 'maxTemplateDepth', limit: 'Block nesting depth (each `{{else if}}` of a chain counts one more)', default: 50, unit: 'levels',
    env: 'HERALD_MAX_TEMPLATE_DEPTH', min: 1, max: 1000, code: 'templateTooDeep', appliesTo: 'POST /v1/email, email templates',
    why: 'Rendering recurses per level.',
  },
  {
    key: 'maxRenderedLength', limit: 'Rendered `html` or `text` part, counting every placeholder filled', default: 10 * MIB, unit: 'characters',
    env: 'HERALD_MAX_RENDERED_LENGTH', min: 1, max: 1024 * MIB, code: 'renderedTooLarge', appliesTo: 'POST /v1/email (template mode)',
    why: 'As the request body limit: a small template cannot multiply a large variable into gigabytes.',
  },
  {
    key: 'maxSmsSegments', limit: 'SMS text, in messages of 160 characters after GSM conversion', default: 10, unit: 'messages',
    env: 'HERALD_MAX_SMS_SEGMENTS', min: 1, max: 255, code: 'smsTooLong', appliesTo: 'POST /v1/sms/send',
    why: '1,600 characters, the cap of the large SMS APIs (Twilio); carriers reassemble long texts unreliably past about ten parts, and a concatenated SMS has at most 255.',
  },
  {
    key: 'maxSmsNumbers', limit: 'Mobile numbers per SMS request', default: 1000, unit: 'numbers',
    env: 'HERALD_MAX_SMS_NUMBERS', min: 1, max: 100_000, code: 'tooManyMobileNumbers', appliesTo: 'POST /v1/sms/send',
    why: 'Each number is a message of its own; larger audiences are campaigns.',
  },
  {
    key: 'maxTextRequestBytes', limit: 'Request body of an SMS or WhatsApp send (HERALD_BODY_LIMIT stays the limit of the email send, whose attachments need it)', default: MIB, unit: 'bytes',
    env: 'HERALD_MAX_TEXT_REQUEST_BYTES', min: 1024, max: 1024 * MIB, code: 'bodyTooLarge', appliesTo: 'POST /v1/sms/send, POST /v1/whatsapp/*',
    why: 'Fifty times what the other limits let such a request hold (1,000 numbers, 1,600 characters, 4 KB of metadata); answered 413 from the declared length, the body never parsed.',
  },
  {
    key: 'maxMetadataBytes', limit: '`metadata` size as JSON', default: 4096, unit: 'bytes',
    env: 'HERALD_MAX_METADATA_BYTES', min: 2, max: MIB, code: 'invalidField', appliesTo: 'send routes',
    why: 'It is copied into every webhook event of every message of the send.',
  },
  {
    key: 'maxMetadataDepth', limit: '`metadata` nesting depth (the object itself is level 1)', default: 16, unit: 'levels',
    env: 'HERALD_MAX_METADATA_DEPTH', min: 1, max: 256, code: 'invalidField', appliesTo: 'send routes',
    why: 'Webhook receivers parse it again.',
  },
] as const satisfies readonly LimitRow[];

export type LimitKey = (typeof LIMITS)[number]['key'];
export type RequestLimits = { readonly [K in LimitKey]: number };

/** The documented defaults (tests and callers without a configuration). */
export const DEFAULT_LIMITS: RequestLimits = Object.freeze(
  Object.fromEntries(LIMITS.map((row) => [row.key, row.default])) as RequestLimits,
);

/** The values of the limits out of a configuration (or anything that holds them). */
export function requestLimitsOf(values: RequestLimits): RequestLimits {
  return Object.freeze(Object.fromEntries(LIMITS.map((row) => [row.key, values[row.key]])) as RequestLimits);
}
