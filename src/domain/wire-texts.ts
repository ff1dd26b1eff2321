// Every text the interface puts on the wire, once, exactly as the spec writes it
// (trailing spaces and the spec's own spelling included). Tests compare against
// literal strings, never against this table, so a typo here fails a test.
//
// `http/wire-errors.ts` maps each code to its status and body shape.

export const WIRE_TEXTS = {
  // POST /v1/email, 400
  invalidRequest1: 'Invalid request, missing parameters. err 1',
  invalidRequest2: 'Invalid request, missing parameters. err 2',
  recipientMissing: 'Recipient missing or empty!',
  noRecipients: 'No recipients defined',
  addresseesUndefined: 'Some addressees have not been defined',
  recipientEmpty: 'a Recipient address is empty!',
  recipientWrongStructure: 'The recipient address has the wrong structure!',
  ccWrongStructure: 'The cc address has the wrong structure!',
  bccWrongStructure: 'The bcc address has the wrong structure!',
  missingFrom: 'Missing from address!',
  fromWrongStructure: 'The from address has the wrong structure!',
  missingReplyTo: 'Missing replyTo!',
  missingReplyToName: 'Missing replyTo name!',
  missingReplyToEmail: 'Missing replyTo email!',
  replyToWrongStructure: 'The replyTo address has the wrong structure!',
  subjectMissing: 'Subject missing or empty!',
  bodyMissing: 'Body missing or empty!',
  templateNotFound: 'Could not find template',
  variableSyntax: 'Incorrect variable syntax',
  templateFetchFailed: 'Error Fetching Template',
  attachmentsNotArray: 'Attachments parameter is set but is not an array',
  attachmentFilenameMissing:
    'One or many attachments are missing the filename parameter which is mandatory for each attachment',
  attachmentPathMissing:
    'One or many attachments are missing the path parameter, which is mandatory for each attachment and must be a base64 URI encoded file',
  sendFailed: 'Could not send message, an error has ocurred',

  // 401, application errors
  keyNotAuthorized: 'API key not authorized.',
  // A test key asking for what only a live key may do (docs/sandbox.md), 403 with a `detail`
  testKeyRefused: 'A test key cannot do this',
  serviceInactive: 'current service is not active',
  noMessagesLeft: 'No messages left, please buy more messages',
  domainNotPermitted: 'Domain not permitted. err 2',
  insufficientBalance: 'Insufficient balance',

  // POST /v1/sms/send, 400
  mobileWrongStructure: 'The mobile number has the wrong structure!',
  smsMessageMissing: 'Message missing or empty!',
  mobileNumbersMissing: 'Mobile numbers missing or empty!',

  // POST /v1/whatsapp/sendTemplateMessage, 400
  invalidDestination: 'Invalid destination',
  paramsMismatch: 'Params do not match the template',
  noOpenSession: 'No open session with this destination',

  // Authentication layer (body field `error`)
  noApiKey: 'No API Key sent',
  invalidApiKey: 'Invalid API Key ',
  ipNotAllowed: 'IP Not Allowed ',
  authInternal: 'An error has ocurred, please try again. Contact us if the issue persists',

  // 429 (rate-limit body)
  rateLimited: 'Ha excedido el límite de peticiones permitidas por segundo.',

  // herald's own texts, in the spec's style, for cases the spec leaves open
  bodyTooLarge: 'Request body is too large',
  unsupportedMediaType: 'Unsupported Media Type, send application/json',
  notFound: 'Not found',
  adminUnauthorized: 'Admin token missing or invalid',
  invalidField: 'Invalid request, a field has the wrong type or value',
  conflict: 'Already exists',
  storeUnavailable: 'Service temporarily unavailable, please try again',
  invalidSignature: 'Invalid signature',
  // JSON bodies refused by the parser (http/json-body.ts): 415, then 400
  unsupportedCharset: 'Unsupported charset, send application/json in UTF-8',
  invalidUtf8: 'Invalid request, the body is not valid UTF-8',
  jsonTooDeep: 'Invalid request, the JSON body is nested more than 64 levels deep',
  jsonTooManyElements: 'Invalid request, the JSON body has more than 100000 values',
  // POST /v1/sms/send: a `from` that is not one of the account's SMS senders (domain/sms-sender.ts), 400 with a `detail`
  invalidSender: 'Invalid sender',
  // /v1/webhooks: a test event or a retry while the account has nowhere to post, 409
  webhookUrlMissing: 'No webhook URL is set',
  // PATCH /v1/account from a session: a list that binds sessions without the saver's address, 409 with a `detail` naming it
  allowListLocksOut: 'The IP allow-list would lock you out',

  // Request limits (domain/request-limits.ts; README "Limits"), 400 with a `detail` naming the limit
  tooManyRecipients: 'Too many recipients',
  tooManyAttachments: 'Too many attachments',
  attachmentsTooLarge: 'Attachments are too large',
  subjectTooLong: 'Subject is too long',
  templateTooLarge: 'Template is too large',
  templateTooManyPlaceholders: 'Template has too many placeholders',
  templateTooDeep: 'Template blocks are nested too deeply',
  renderedTooLarge: 'Rendered email is too large',
  smsTooLong: 'Message is too long',
  tooManyMobileNumbers: 'Too many mobile numbers',

  // /v1/suppressions and /v1/contacts (and an import's rows), 400
  suppressionEmailMissing: 'Email missing or empty!',
  suppressionEmailWrongStructure: 'The email address has the wrong structure!',

  // POST /v1/contacts/imports: 400, and 415 for a body that is neither CSV nor JSON
  importEmpty: 'The import has no rows',
  importNoEmailColumn: 'The CSV header has no email column',
  importNotArray: 'A JSON import must be an array of contacts',
  importMediaType: 'Unsupported Media Type, send text/csv or application/json',
  // An account past one of its quotas (app/account-quotas.ts), 403 with a `detail`
  quotaExceeded: 'Account quota exceeded',
  // A segment count or campaign quote that read the store past its limit (app/heavy-reads.ts), 503 with a `detail`
  readTimedOut: 'The request took too long to answer',

  // Users, sign-in and sessions of the web application (issue 12; docs/users-and-sessions.md)
  signInFailed: 'Incorrect email or password',
  currentPasswordIncorrect: 'The current password is incorrect',
  totpRequired: 'Two-factor code required',
  totpIncorrect: 'Incorrect two-factor code',
  signInThrottled: 'Too many sign-in attempts, try again later',
  sessionExpired: 'Session expired, sign in again',
  csrfRefused: 'CSRF token missing or invalid',
  linkInvalid: 'This link is invalid, used or expired',
  userExists: 'A user with this email already exists',
  lastOwner: 'The account must keep an owner who can sign in',
  totpAlreadyOn: 'Two-factor sign-in is already on',
  totpNotStarted: 'Start the two-factor set-up first',
  totpNotOn: 'Two-factor sign-in is off',
  passwordResetSent: 'If a user has this address, an email with a link to set a new password is on its way',
  // …and when herald has no sender (HERALD_AUTH_EMAIL_FROM unset): no page may claim an email is on its way.
  passwordResetNoSender: 'herald sends no email here, so no reset link can be sent: ask an owner of your account or the operator',
  // Issue 19: guesses of codes, passwords and tokens slowed (429 with Retry-After), invitations throttled,
  // and accepting an invitation for an address that already signs in elsewhere.
  attemptsThrottled: 'Too many attempts, try again later',
  invitationsThrottled: 'Too many invitations, try again later',
  // GET /v1/events/stream past its bounds (per user and per process, app/live-feed.ts): 429
  liveStreamsExceeded: 'Too many live update streams open, close one or try again later',
  addressInUse: 'This address already signs in to herald: ask for an invitation to another address',

  // /v1/campaigns: an action the campaign's status does not allow (409, with `status`),
  // and a send whose audience holds nobody (400)
  campaignState: 'The campaign cannot do this in its current status',
  campaignEmpty: 'The campaign has no recipients',
  // DELETE /v1/email/templates/:id while a scheduled, running or paused campaign uses it (409, with a `detail` naming them)
  templateInUse: 'The template is used by a campaign that has not finished',
  // DELETE /v1/domains/:domain while a scheduled, running or paused campaign sends from it (409, with a `detail` naming them)
  domainInUse: 'The domain is used by a scheduled or running campaign',
  // DELETE or PATCH /v1/messages/:msgid/schedule on a message that is not (or no longer) scheduled (409, with its `status`)
  messageNotScheduled: 'The message is not scheduled',

  // Idempotency-Key on the send routes (README "Idempotent sends"): 400, 422, 409
  idempotencyKeyInvalid: 'Invalid request, the Idempotency-Key header must be 1 to 255 printable characters',
  idempotencyKeyReused: 'Idempotency key already used with a different request',
  idempotencyKeyInFlight: 'A request with this idempotency key is being processed',

  // A message whose send is older than HERALD_RETENTION_DAYS (README "Retention"): 410
  contentPurged: 'The content of this message was purged after the retention period',

  // Answered on the connection before any route sees the request (http/client-connections.ts)
  requestTimedOut: 'Request timed out',
  headersTooLarge: 'Request header fields too large',
  malformedRequest: 'Invalid request, malformed HTTP',
} as const;

export type WireCode = keyof typeof WIRE_TEXTS;
