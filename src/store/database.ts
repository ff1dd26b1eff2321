import type { Generated, Kysely, Selectable, Transaction } from 'kysely';

// Table shapes, declared once. Times are epoch milliseconds (portable and cheap to
// compare in both engines); money is integer units of 0.0001; flags are 0/1.

export interface SettingsTable { key: string; value: string }

export interface AccountsTable {
  id: string;
  name: string;
  active: number;
  messages_left: number;
  balance: number;
  whatsapp_price: number;
  rate_limit_per_second: number;
  ip_allow_list: string; // JSON array of IP/CIDR strings
  allow_list_applies_to: string; // all | keys (migration 0024): whom the allow-list binds
  email_enabled: number;
  sms_enabled: number;
  whatsapp_enabled: number;
  webhook_url: string | null;
  created_at: number;
  updated_at: number;
  whatsapp_phone_number_id: string | null;
  whatsapp_access_token: string | null;
  whatsapp_business_account_id: string | null;
  webhook_events: string | null; // JSON array of public event types; null: every type
  webhook_secret: string | null; // whsec_<base64>, Standard Webhooks
  webhook_secret_previous: string | null;
  webhook_secret_previous_until: number | null;
  /** Set when the endpoint answered 410 Gone (migration 0005); cleared when the settings are saved again. */
  webhook_disabled_at: number | null;
  webhook_disabled_reason: string | null;
  /** The first endpoint's description (migration 0034). */
  webhook_description: string | null;
  track_opens: number;
  track_clicks: number;
  /** JSON array of the account's SMS senders, the first its default (migration 0029); null: the transport's own. */
  sms_senders: string | null;
  /** JSON {stop, start, help}: the account's own keywords besides the standard ones. */
  sms_keywords: string | null;
  sms_help_text: string | null;
  sms_stop_text: string | null;
  sms_start_text: string | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  key_hash: string; // hex SHA-256 of the whole key; the key itself is never stored
  scopes: string; // space-separated; this row decides, not the JWT's `scope` claim (migration 0004 changed rows)
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  name: Generated<string>; // what the account calls the key ('' for keys from before names)
  last_used_at: number | null; // written at most once a minute
  last_used_ip: string | null;
  mode: Generated<string>; // live | test (migration 0013)
}

export interface SenderDomainsTable {
  id: string;
  account_id: string;
  domain: string;
  verified: number;
  created_at: number;
  dkim_selector: string | null;
  dkim_private_key: string | null; // PEM (PKCS#8)
  dkim_public_key: string | null; // base64 SubjectPublicKeyInfo, as published in the DKIM TXT record
  verification_token: string | null;
  verified_at: number | null;
}

export interface EmailTemplatesTable {
  id: string;
  account_id: string;
  name: string;
  subject: string | null;
  html: string;
  text: string | null;
  created_at: number;
  updated_at: number;
}

export interface WhatsappTemplatesTable {
  id: string;
  account_id: string;
  name: string;
  language: string;
  body: string;
  param_count: number;
  status: string;
  category: string;
  header: string | null;
  footer: string | null;
  submission: string;
  meta_template_id: string | null;
  submission_error: string | null;
  created_at: number;
  updated_at: number;
}

/** One accepted request: the content its messages share (JSON), stored once. */
export interface SendsTable {
  id: string;
  account_id: string;
  channel: string;
  payload: string;
  created_at: number;
  family: string; // transactional | campaign
  metadata: string | null; // JSON object the client attached to the send
  certified: number;
  track_opens: number;
  track_clicks: number;
  campaign_name: string | null; // the `campaign` field of POST /v1/email (migration 0010)
  request_id: string | null; // the x-request-id of the request that made it (migration 0027)
  source: string; // `api` or `smtp`: the door the send came in by (migration 0028)
  subject: string | null; // email: its subject (migration 0030)
  sender: string | null; // email: the From address; SMS: the sender asked for (migration 0030)
  fallback: string | null; // JSON {chain_id, leg, legs}: a leg of a fallback chain (migration 0036)
}

/** A leg of a fallback chain after the first, reserved at acceptance (migration 0036; docs/fallback.md). */
export interface FallbackLegsTable {
  id: string; // the msgid reserved for the leg's message
  account_id: string;
  chain_id: string;
  send_id: string; // the send id reserved for it
  previous_message_id: string;
  channel: string;
  recipient: string;
  payload: string; // JSON: the checked payload of its send
  options: string; // JSON: the chain's send options (family, metadata, campaign name)
  mode: string; // live | test
  state: string; // waiting | released | cancelled
  leg: number;
  legs: number;
  after_ms: number;
  reserved_messages: number;
  reserved_balance: number;
  due_at: number | null;
  request_id: string | null;
  created_at: number;
  updated_at: number;
}

/** One request an API key made (migration 0030; app/api-request-log.ts). */
export interface ApiRequestsTable {
  id: string;
  account_id: string;
  key_id: string;
  method: string;
  path: string; // without its query
  request_id: string;
  status: number;
  duration_ms: number;
  created_at: number;
}

export interface MessagesTable {
  id: string; // the msgid, UUIDv7
  account_id: string;
  send_id: string;
  channel: string;
  recipient: string;
  recipient_role: string; // email: to | cc | bcc; sms and whatsapp: to
  status: string;
  cost_messages: number;
  cost_balance: number;
  provider_ref: string | null; // the peer's id of this message: SMPP message_id, WhatsApp wamid
  created_at: number;
  updated_at: number;
  campaign_id: string | null; // campaign messages only: the campaign, and
  contact_id: string | null; // the contact it is for (unique together)
  mode: Generated<string>; // live | test: the mode of the key that sent it (migration 0013)
  send_at: Generated<number | null>; // a scheduled send's time (migration 0035); null: sent at once
}

/** A simulator recipient's later report, due at due_at (migration 0013; outbox/simulated-reports.ts). */
export interface SimulatedReportsTable {
  id: string; // UUIDv7: a message's reports in their order
  message_id: string;
  account_id: string;
  step: string; // delivered | bounced | failed | complained | unsubscribed | opened | clicked | read
  due_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
}

/** Delivery work: a row exists while the message still has to be (re)tried. */
export interface OutboxTable {
  message_id: string;
  channel: string;
  available_at: number;
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  /** When the running attempt was claimed (its `sending` step); null between attempts and on rows from before migration 0019. */
  claimed_at: number | null;
  /** The previous claim's time when it ended without an outcome, for the next claim to record (outbox/claim.ts). */
  abandoned_at: number | null;
}

export interface MessageEventsTable {
  id: string;
  message_id: string;
  type: string;
  at: number;
  data: string; // JSON object of the event's own fields
  /** A delivery attempt's outcome: when the attempt was claimed, its `sending` step (store/message-timeline.ts). */
  sending_at: number | null;
}

/** The webhook outbox: one row per event for an account with a webhook URL. */
export interface WebhookDeliveriesTable {
  id: string; // the event's id, sent as `webhook-id`
  account_id: string;
  message_id: string | null; // null for test events
  type: string; // public event type, e.g. email.delivered
  payload: string; // the JSON body, fixed when the event was recorded
  status: string; // pending | succeeded | failed
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** The endpoint (webhook_endpoints.id) it goes to; null: the account's first endpoint (migration 0034). */
  endpoint_id: string | null;
}

/** An account's endpoints after the first (which stays on the accounts row), migration 0034. */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  events: string | null; // JSON array of public event types; null: every type
  secret: string;
  secret_previous: string | null;
  secret_previous_until: number | null;
  disabled_at: number | null;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  at: number;
  url: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface SuppressionsTable {
  account_id: string;
  address: string; // lower-cased
  reason: string; // unsubscribed | bounced | complained | manual
  message_id: string | null;
  created_at: number;
}

export interface InboundReportsTable {
  id: string;
  received_at: number;
  kind: string; // dsn | arf | unknown
  mail_from: string | null;
  rcpt_to: string;
  message_id: string | null;
  raw: string;
  parsed: string | null; // JSON of what was understood
  error: string | null; // why it could not be used, if it could not
}

export interface CertificatesTable {
  message_id: string;
  account_id: string;
  receipt: string; // compact JWS (EdDSA)
  eml: string; // the exact MIME delivered; '' when layout is set
  /** JSON layout over the send's mime_pieces (store/mime-layout.ts); null: eml is the whole text. */
  layout: string | null;
  created_at: number;
}

export interface CapturesTable {
  message_id: string;
  content_type: string;
  /** The whole capture; '' when layout is set. */
  body: string;
  /** JSON layout over the send's mime_pieces (store/mime-layout.ts); null: body is the whole text. */
  layout: string | null;
  created_at: number;
}

/** A piece of MIME text that the stored copies of one send share, kept once (store/mime-pieces.ts). */
export interface MimePiecesTable {
  send_id: string;
  sha256: string;
  body: string;
}

export interface LedgerTable {
  id: string;
  account_id: string;
  at: number;
  messages_delta: number;
  balance_delta: number;
  reason: string;
  send_id: string | null;
  note: string | null; // the operator's words for a top-up or a set
}

/** A running herald process and its heartbeat (the operator's service health). */
export interface ProcessesTable {
  id: string;
  role: string;
  pid: number;
  host: string;
  started_at: number;
  last_seen_at: number;
  /** Migration 0025: when its leases were taken over because its heartbeat stopped; cleared by its next beat. */
  leases_released_at: number | null;
}

/** Migration 0012: a send's Idempotency-Key with the answer it got (store/idempotency-keys.ts). */
export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  fingerprint: string;
  status: number;
  answer: string;
  created_at: number;
  expires_at: number;
}

export interface WhatsappSessionsTable {
  account_id: string;
  destination: string;
  last_inbound_at: number;
}

export interface SegmentsTable {
  id: string;
  account_id: string;
  name: string;
  definition: string; // JSON {lists, exclude_lists, filter?} (campaigns/segment-filter.ts); migration 0032
  created_at: number;
  updated_at: number;
}

export interface ContactErasuresTable {
  id: string;
  account_id: string;
  contact_id: string;
  address_digest: string; // hex SHA-256 of `${account_id}\n${address}`; migration 0032
  at: number;
}

export interface ListsTable {
  id: string;
  account_id: string;
  name: string;
  optin: string; // single | double
  description: string | null;
  from_email: string | null; // sender of confirmation emails (double opt-in)
  from_name: string | null;
  confirmation_template_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface ContactsTable {
  id: string;
  account_id: string;
  email: string; // lower-cased
  name: string | null;
  attributes: string; // JSON object
  created_at: number;
  updated_at: number;
}

/** A contact's subscription to a list. */
export interface ListMembersTable {
  list_id: string;
  contact_id: string;
  status: string; // unconfirmed | confirmed | unsubscribed
  created_at: number;
  updated_at: number;
}

/** Every change of a subscription's status, kept. */
export interface ConsentEventsTable {
  id: string;
  contact_id: string;
  list_id: string;
  status: string;
  source: string; // api | import | link | unsubscribe | complaint
  at: number;
  detail: string | null; // JSON object
}

/** One message a person sent to an account (migration 0029); account_id null: unrouted. */
export interface InboundMessagesTable {
  id: string;
  account_id: string | null;
  channel: string; // sms | whatsapp | email
  sender: string;
  recipient: string;
  text: string | null;
  content: string | null; // JSON object: the channel's own fields
  keyword: string | null; // stop | start | help when the message was one
  reply_to: string | null; // the msgid of the message this one answers
  provider_ref: string | null;
  received_at: number;
  created_at: number;
}

/** A part of a concatenated MO SMS, kept until its message is whole (or its time-out). */
export interface InboundSmsPartsTable {
  id: string;
  sender: string;
  recipient: string;
  reference: number;
  total: number;
  part: number;
  text: string;
  received_at: number;
}

/** A file that came with an inbound message; WhatsApp media is fetched in the background. */
export interface InboundAttachmentsTable {
  id: string;
  inbound_id: string;
  account_id: string | null;
  filename: string | null;
  content_type: string | null;
  media_ref: string | null;
  content: string | null; // base64 once stored
  last_error: string | null;
  size: number;
  state: string; // pending | stored | failed
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Every change of a person's consent on any channel, with its proof. */
export interface ConsentLedgerTable {
  id: string;
  account_id: string;
  channel: string;
  address: string;
  sender: string; // '' when not about one sender
  change: string; // opted_out | opted_in
  source: string; // keyword | unsubscribe | complaint | list | api | web
  keyword: string | null;
  proof: string | null; // JSON object
  at: number;
}

/** Who is opted out now: one row per (account, channel, address, sender). */
export interface OptOutsTable {
  account_id: string;
  channel: string;
  address: string;
  sender: string;
  ledger_id: string;
  at: number;
}

/** A domain an account receives email at. */
export interface ReceivingDomainsTable {
  id: string;
  account_id: string;
  domain: string;
  verified_at: number | null;
  rules: string | null; // JSON array of {address, action, forward_to}
  created_at: number;
  updated_at: number;
}

export interface ContactImportsTable {
  id: string;
  account_id: string;
  list_id: string | null;
  format: string; // csv | json
  status: string; // receiving | running | finished | failed
  rows: Generated<number>;
  created: Generated<number>;
  updated: Generated<number>;
  rejected: Generated<number>;
  errors: Generated<string>; // JSON array of {row, message}
  failure: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  mode: Generated<string>; // live | test: who started it; a test import's confirmations are test messages (migration 0022)
  /** Claims since the last committed batch (migration 0020): past HERALD_IMPORT_MAX_ATTEMPTS the import ends failed. */
  attempts: Generated<number>;
  /** Bytes of the stored body, counted as it arrives (migration 0020): the account's upload quota. */
  body_bytes: Generated<number>;
}

export interface ContactImportChunksTable {
  import_id: string;
  seq: number;
  data: string;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string; // lower-cased; unique over the service
  role: string; // owner | developer | viewer
  password_hash: string | null; // null until the invitation is accepted
  totp_secret: string | null; // encrypted (app/totp.ts); null: two-factor off
  totp_pending_secret: string | null;
  totp_last_step: number | null;
  created_at: number;
  updated_at: number;
  last_sign_in_at: number | null;
  locale: string | null; // en | es; null: not chosen
}

export interface SessionsTable {
  id: string;
  token_hash: string; // hex SHA-256 of the cookie's value; the value itself is never stored
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ended_at: number | null;
}

export interface UserLinksTable {
  token_hash: string; // hex SHA-256 of the link's token
  user_id: string;
  purpose: string; // invitation | password_reset
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface OperatorSessionsTable {
  id: string;
  token_hash: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ended_at: number | null;
}


/** An email campaign: content, audience, state, billing and the runner's progress (migration 0010). */
export interface CampaignsTable {
  id: string;
  account_id: string;
  name: string;
  status: string; // draft | scheduled | running | paused | finished | cancelled
  subject: string;
  from_email: string;
  from_name: string;
  reply_to_email: string;
  reply_to_name: string;
  body: string | null;
  template_id: string | null;
  variables: Generated<string>; // JSON object of strings
  lists: string; // JSON array of list ids
  exclude_lists: Generated<string>; // JSON array of list ids
  filter: string | null; // JSON filter (campaigns/segment-filter.ts)
  send_at: number | null;
  messages_per_minute: number | null;
  messages_per_minute_per_domain: number | null; // migration 0014; null: no per-domain limit
  parent_id: string | null;
  resend_to: string | null; // not_opened | not_clicked
  content: string | null; // JSON {subject, html, text}, fixed at send
  track_opens: Generated<number>;
  track_clicks: Generated<number>;
  cutoff: string | null;
  cursor: string | null;
  walked: Generated<number>;
  billed: Generated<number>;
  queued: Generated<number>;
  dropped: Generated<number>;
  refunded: Generated<number>;
  next_at: number | null;
  due_at: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  mode: Generated<string>; // live | test: a test key's campaign (migration 0022)
}

/** When a campaign's next message to a recipient domain may go (migration 0014). */
export interface CampaignDomainsTable {
  campaign_id: string;
  domain: string;
  next_at: number;
}

export interface Database {
  campaigns: CampaignsTable;
  campaign_domains: CampaignDomainsTable;
  users: UsersTable;
  sessions: SessionsTable;
  user_links: UserLinksTable;
  operator_sessions: OperatorSessionsTable;
  lists: ListsTable;
  segments: SegmentsTable;
  contact_erasures: ContactErasuresTable;
  contacts: ContactsTable;
  list_members: ListMembersTable;
  consent_events: ConsentEventsTable;
  inbound_messages: InboundMessagesTable;
  inbound_attachments: InboundAttachmentsTable;
  inbound_sms_parts: InboundSmsPartsTable;
  consent_ledger: ConsentLedgerTable;
  opt_outs: OptOutsTable;
  receiving_domains: ReceivingDomainsTable;
  contact_imports: ContactImportsTable;
  contact_import_chunks: ContactImportChunksTable;
  whatsapp_sessions: WhatsappSessionsTable;
  settings: SettingsTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  api_requests: ApiRequestsTable;
  sender_domains: SenderDomainsTable;
  email_templates: EmailTemplatesTable;
  whatsapp_templates: WhatsappTemplatesTable;
  sends: SendsTable;
  fallback_legs: FallbackLegsTable;
  messages: MessagesTable;
  outbox: OutboxTable;
  simulated_reports: SimulatedReportsTable;
  message_events: MessageEventsTable;
  captures: CapturesTable;
  mime_pieces: MimePiecesTable;
  ledger: LedgerTable;
  processes: ProcessesTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_endpoints: WebhookEndpointsTable;
  suppressions: SuppressionsTable;
  inbound_reports: InboundReportsTable;
  certificates: CertificatesTable;
}

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or an open transaction: repository functions accept both. */
export type Executor = Db | Tx;

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type UserRow = Selectable<UsersTable>;
export type MessageRow = Selectable<MessagesTable>;
export type LedgerRow = Selectable<LedgerTable>;
export type EmailTemplateRow = Selectable<EmailTemplatesTable>;
export type WhatsappTemplateRow = Selectable<WhatsappTemplatesTable>;

