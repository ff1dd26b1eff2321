// JSON Schemas of the interface's own sends (../shared/spec/interface-v1.md), for the
// OpenAPI document only: those routes check by hand in domain/ (http/interface-checks.ts
// lists them), to answer with the spec's exact texts in its order, so these schemas
// describe the wire and are never used to reject a request.

const recipient = { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } } as const;
const named = {
  type: 'object', required: ['email', 'name'],
  properties: { email: { type: 'string', format: 'email' }, name: { type: 'string' } },
} as const;

/** herald's own send fields beyond the spec's (domain/send-options.ts); SMS and WhatsApp take metadata and campaign. */
export const sendOptionFields = {
  metadata: { type: 'object', additionalProperties: true, description: 'Any JSON object (≤ 4,096 bytes, ≤ 16 levels): echoed in every webhook event of the send' },
  campaign: { type: 'string', maxLength: 200, description: 'A campaign name: the send belongs to the `campaign` family of events' },
  send_at: {
    type: 'string', format: 'date-time',
    description: 'Send later (README "Scheduled sends"): ISO 8601 with a UTC offset or Z, at most 72 hours ahead; billed now, the messages `scheduled` until then. '
      + 'Now or past: sent at once. More than 72 hours ahead: 400 with detail `send_at must be at most 72 hours ahead`',
  },
} as const;

/** Email only: certified delivery and tracking over the account's defaults. */
export const emailOptionFields = {
  ...sendOptionFields,
  certified: { type: 'boolean', description: 'Keep signed evidence of delivery (docs/certified-delivery.md); certified email is never tracked' },
  tracking: {
    type: 'object', additionalProperties: false, description: 'Open and click tracking for this send, over the account\'s defaults',
    properties: { opens: { type: 'boolean' }, clicks: { type: 'boolean' } },
  },
} as const;

const fallbackAfter = { type: 'string', pattern: '^[1-9][0-9]{0,5}(s|m|h)$', description: 'How long the previous leg has to be delivered: 30s, 10m, 1h (1 s to 24 h)' } as const;

/** herald's own: the legs that go when the send is not delivered in time (docs/fallback.md); `message`: what the SMS leg's body says. */
const fallbackField = (sent: string, numbers: string) => ({
  type: 'array', minItems: 1, maxItems: 1,
  description: `A fallback chain: the SMS goes when the ${sent} is not delivered within \`after\`, or fails; its cost is debited now and refunded if it never goes`,
  items: {
    type: 'object', required: ['channel', 'after', 'message'],
    properties: {
      channel: { type: 'string', enum: ['sms'] },
      after: fallbackAfter,
      message: {
        type: 'object', required: ['message'], description: `The body of POST /v1/sms/send; ${numbers}`,
        properties: { message: { type: 'string' }, from: { type: 'string' }, mobile_numbers: { type: 'array', minItems: 1, maxItems: 1, items: { type: 'string' } } },
      },
    },
  },
}) as const;

/** The chain of an accepted send with a `fallback`: every leg's msgid, reserved now. */
const fallbackAnswer = {
  type: 'object', required: ['chain_id', 'legs'],
  properties: {
    chain_id: { type: 'string', format: 'uuid' },
    legs: {
      type: 'array',
      items: {
        type: 'object', required: ['leg', 'channel', 'msgid'],
        properties: { leg: { type: 'integer' }, channel: { type: 'string' }, msgid: { type: 'string', format: 'uuid' }, after: { type: 'string' } },
      },
    },
  },
} as const;

export const emailRequest = {
  type: 'object',
  required: ['to', 'from', 'replyTo', 'subject'],
  properties: {
    ...emailOptionFields,
    fallback: fallbackField('email (to one recipient)', 'mobile_numbers, one number, is required'),
    to: { type: 'array', items: recipient },
    options: { type: 'object', properties: { cc: { type: 'array', items: recipient }, bcc: { type: 'array', items: recipient } } },
    from: named,
    replyTo: named,
    subject: { type: 'string', minLength: 1 },
    body: { type: 'string', description: 'HTML or plain text; not required when template_id is given (the template wins when both are).' },
    template_id: { type: 'string' },
    variables: { type: 'object', additionalProperties: { type: 'string' }, description: 'Values for the template\'s `{{name}}` placeholders; text only (any other value is `Incorrect variable syntax`)' },
    attachments: {
      type: 'array',
      items: {
        type: 'object', required: ['filename', 'path'],
        properties: { filename: { type: 'string' }, path: { type: 'string', description: 'http(s) URL, fetched at delivery, or a base64 data: URI' } },
      },
    },
  },
} as const;

export const emailResponse = {
  type: 'object', required: ['message', 'to'],
  properties: {
    fallback: fallbackAnswer,
    message: { type: 'string' },
    to: { type: 'array', items: { type: 'object', required: ['email', 'msgid'], properties: { email: { type: 'string' }, msgid: { type: 'string', format: 'uuid' } } } },
  },
} as const;

// An email leg's body is POST /v1/email's, without a chain of its own.
const { fallback: _chain, ...emailLegProperties } = emailRequest.properties;

export const smsRequest = {
  type: 'object', required: ['message', 'mobile_numbers'],
  properties: {
    message: { type: 'string', description: '160 characters a segment; characters outside GSM 03.38 are transliterated or removed' },
    mobile_numbers: { type: 'array', items: { type: 'string', pattern: '^\\+[0-9]{10,15}$' } },
    from: {
      type: 'string',
      description: 'The sender, one of the account\'s SMS senders (`smsSenders`, set by the operator); default: the first of them, '
        + 'or the service\'s own when the account has none. Any other: 400 `Invalid sender` with a `detail` (docs/sms-senders.md)',
    },
    ...sendOptionFields,
    fallback: {
      type: 'array', minItems: 1, maxItems: 1,
      description: 'A fallback chain (an SMS to one number): the email goes when the SMS is not delivered within `after`, or fails; its cost is debited now and refunded if it never goes',
      items: {
        type: 'object', required: ['channel', 'after', 'message'],
        properties: {
          channel: { type: 'string', enum: ['email'] },
          after: fallbackAfter,
          message: { type: 'object', description: 'The body of POST /v1/email, to one recipient', properties: emailLegProperties },
        },
      },
    },
  },
} as const;

export const smsResponse = {
  type: 'object', required: ['result', 'total_contacts', 'total_messages_sent', 'messages_left'],
  properties: {
    fallback: fallbackAnswer,
    result: { type: 'string' },
    total_contacts: { type: 'integer' },
    total_messages_sent: { type: 'integer' },
    messages_left: { type: 'integer' },
    messages: { type: 'array', items: { type: 'object', properties: { mobile_number: { type: 'string' }, msgid: { type: 'string', format: 'uuid' } } } },
  },
} as const;

export const whatsappRequest = {
  type: 'object', required: ['destination', 'templateId'],
  properties: {
    destination: { type: 'string', pattern: '^\\+?[0-9]{8,15}$' },
    templateId: { type: 'string' },
    params: { type: 'array', items: { type: 'string' } },
    ...sendOptionFields,
    fallback: fallbackField('WhatsApp message', 'mobile_numbers defaults to the WhatsApp destination'),
  },
} as const;

export const whatsappResponse = {
  type: 'object', required: ['result', 'current_balance'],
  properties: { result: { type: 'string' }, current_balance: { type: 'number' }, msgid: { type: 'string', format: 'uuid' }, fallback: fallbackAnswer },
} as const;
