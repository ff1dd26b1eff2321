// The request and answer types of the operations the client calls, taken from the
// generated schema.d.ts by operationId, so a change of the document is a change here.
import type { operations, webhooks } from './schema.d.ts';

type JsonOf<Content> = Content extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body an operation takes. */
export type RequestBody<Id extends keyof operations> = JsonOf<operations[Id]['requestBody']>;
/** The JSON body of an operation's answer of status `Status` (200 unless given). */
export type Answer<Id extends keyof operations, Status extends number = 200> =
  operations[Id]['responses'] extends { [S in Status]: infer Ok } ? JsonOf<Ok> : never;
/** The query parameters an operation takes. */
export type Query<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;

export type EmailRequest = RequestBody<'sendEmail'>;
export type EmailAnswer = Answer<'sendEmail'>;
export type SmsRequest = RequestBody<'sendSms'>;
export type SmsAnswer = Answer<'sendSms'>;
export type WhatsappTemplateRequest = RequestBody<'sendWhatsappTemplate'>;
export type WhatsappTemplateAnswer = Answer<'sendWhatsappTemplate'>;
export type WhatsappMessageRequest = RequestBody<'sendWhatsappMessage'>;
export type WhatsappMessageAnswer = Answer<'sendWhatsappMessage'>;
export type Message = Answer<'getMessage'>;
export type MessageQuery = Omit<Query<'listMessages'>, 'cursor'>;
export type MessagePage = Answer<'listMessages'>;
/** A row of GET /v1/messages. */
export type MessageSummary = MessagePage['data'][number];
export type WebhookSettings = Answer<'getWebhookSettings'>;
export type WebhookSettingsRequest = RequestBody<'setWebhookSettings'>;

/** A send body whose `send_at` may also be a Date (sent as its ISO string, which is what JSON makes of it). */
export type Schedulable<Request> = Request extends { send_at?: string }
  ? Omit<Request, 'send_at'> & { send_at?: string | Date }
  : Request;
/** An item of POST /v1/email/batch: a POST /v1/email body. */
export type EmailBatchItem = RequestBody<'sendEmailBatch'>[number];
/** `{data}`: each item's answer in the items' order. */
export type EmailBatchAnswer = Answer<'sendEmailBatch'>;
/** An item's answer: its single send's 200 body, or a BatchItemError. */
export type EmailBatchResult = EmailBatchAnswer['data'][number];
/** An item of POST /v1/sms/batch: a POST /v1/sms/send body. */
export type SmsBatchItem = RequestBody<'sendSmsBatch'>[number];
export type SmsBatchAnswer = Answer<'sendSmsBatch'>;
export type SmsBatchResult = SmsBatchAnswer['data'][number];
/** A refused item: the status and error body its single send would have had. */
export type BatchItemError = Extract<EmailBatchResult | SmsBatchResult, { status: number }>;
/** DELETE /v1/messages/{msgid}/schedule: `{msgid, status: 'cancelled', refunded}`. */
export type ScheduleCancelled = Answer<'deleteMessageSchedule'>;
/** PATCH /v1/messages/{msgid}/schedule: `{msgid, status: 'scheduled', send_at}`. */
export type Rescheduled = Answer<'updateMessageSchedule'>;
export type WebhookEndpoint = Answer<'getWebhooksEndpoint'>;
/** `{data}`: the first endpoint (when it has a URL), then the others, oldest first. */
export type WebhookEndpointList = Answer<'listWebhooksEndpoints'>;
export type WebhookEndpointRequest = RequestBody<'createWebhooksEndpoint'>;
/** Only the fields given change. */
export type WebhookEndpointUpdate = RequestBody<'updateWebhooksEndpoint'>;
/** `webhook.test` or a public event type. */
export type WebhookTestEventType = RequestBody<'testWebhooksEndpoint'>['type'];
/** The test event's delivery, as in GET /v1/webhooks/deliveries. */
export type WebhookTestDelivery = Answer<'testWebhooksEndpoint', 202>;

/** The type of an event herald posts, e.g. `email.sent`. */
export type WebhookEventType = keyof webhooks;
/** A posted event: `{type, timestamp, data}`, `data` as the type's entry in the document describes it. */
export type WebhookEvent = { [Type in WebhookEventType]: JsonOf<webhooks[Type]['post']['requestBody']> }[WebhookEventType];
