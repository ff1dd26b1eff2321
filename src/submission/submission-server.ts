import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAddress, type SMTPServerAuthentication, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { KeyDeps } from '../app/api-keys.ts';
import { idempotentSend, purgeExpiredKeysIfDue } from '../app/idempotent-send.ts';
import type { StoreOutage } from '../app/store-outage.ts';
import { authenticateSubmitter, checkEnvelopeSender, submitEmail, submittingAccount, type Submitter } from '../app/submit-email.ts';
import type { EmailAccepted } from '../app/send-email.ts';
import type { Account } from '../domain/account.ts';
import { parseAddress } from '../domain/email-address.ts';
import type { Result } from '../domain/result.ts';
import { listenSmtp } from '../smtp-listen.ts';
import { AuthBrake } from './auth-brake.ts';
import { keepEnhancedCodesAsWritten } from '../smtp-enhanced-codes.ts';
import { readSubmittedMessage } from './message-reader.ts';
import { REPLIES, replyToRejection, smtpError, type SubmissionReply } from './reply-table.ts';

// SMTP submission (RFC 6409), issue 22 and docs/smtp-submission.md. Each step answers
// what it can first answer, with the API's guard and text:
//
//   connect    connections per address (421)
//   AUTH       TLS or loopback (538), the failed-AUTH brake (454), the key: valid (535 5.7.8),
//              `email` scope, allow-list of the connection's address
//   MAIL FROM  service active, rate limit (each message one request: 451 RATE_LIMIT_EXCEEDED),
//              the envelope sender's domain verified
//   RCPT TO    a valid address, recipients per message, messages left (live keys)
//   DATA       size (552, cut off early), the message read, the header From's domain, then
//              the API's send in one transaction: durable before the 250 that names its msgids.

/** The account's rate counter (http/plugins/rate-limit.ts gives the API's, shared through Redis). */
export interface SubmissionRateCounter {
  consume(accountId: string, limitPerSecond: number): Promise<{ readonly allowed: boolean } | 'unavailable'>;
}

export interface SubmissionServerOptions {
  readonly port: number;
  readonly host: string;
  /** The name in the greeting and EHLO reply. */
  readonly name: string;
  /** Implicit TLS (RFC 8314, port 465) rather than STARTTLS. */
  readonly secure: boolean;
  readonly tls: { readonly key: Buffer; readonly cert: Buffer } | undefined;
  /** SIZE: the API's email body limit (HERALD_BODY_LIMIT). */
  readonly maxBytes: number;
  readonly maxConnectionsPerAddress: number;
  /** Idle time before a connection is closed. */
  readonly socketTimeoutMs?: number;
}

export interface SubmissionServerDeps {
  readonly keys: KeyDeps;
  readonly rateCounter: SubmissionRateCounter;
  readonly outage: StoreOutage;
  readonly logger: Logger;
}

export interface SubmissionServer {
  readonly port: number;
  /** Takes a renewed certificate for new connections. */
  reloadTls(tls: { readonly key: Buffer; readonly cert: Buffer }): void;
  close(): Promise<void>;
}

/** What one connection has established: who it is (AUTH), and the transaction under way. */
interface ConnectionState {
  submitter?: Submitter;
  account?: Account;
  envelopeFrom?: string;
  recipients: number;
  refusedRecipients: number;
}

/** RCPT refusals past the recipients limit before the connection is closed: a client looping on 452 stops here. */
const REFUSED_RECIPIENTS_BEFORE_CLOSE = 100;
const IDLE_MS = 60_000;

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export async function startSubmissionServer(options: SubmissionServerOptions, deps: SubmissionServerDeps): Promise<SubmissionServer> {
  keepEnhancedCodesAsWritten();
  const log = deps.logger.child({ component: 'smtp-submission', port: options.port === 0 ? undefined : options.port });
  const { keys } = deps;
  const metrics = keys.metrics;
  const brake = new AuthBrake();
  const states = new Map<string, ConnectionState>();
  const perAddress = new Map<string, number>();
  const stateOf = (session: SMTPServerSession): ConnectionState => {
    let state = states.get(session.id);
    if (state === undefined) {
      state = { recipients: 0, refusedRecipients: 0 };
      states.set(session.id, state);
    }
    return state;
  };
  const refuse = (reply: SubmissionReply, session: SMTPServerSession, detail: Record<string, unknown> = {}): Error => {
    metrics.submissionObserved(reply.outcome);
    log.info({ address: session.remoteAddress, reason: reply.outcome, code: reply.code, ...detail }, 'SMTP submission refused');
    return smtpError(reply);
  };
  /** A thrown error: the store out is a temporary refusal; anything else a bug, logged and counted. */
  const failure = (error: unknown, session: SMTPServerSession, step: string): Error => {
    if (deps.outage.noticed(error, log)) return refuse(replyToRejection('storeUnavailable'), session, { step });
    metrics.unexpectedError('submission');
    log.error({ err: error, address: session.remoteAddress, step }, 'SMTP submission failed');
    return refuse(REPLIES.failed, session, { step });
  };
  /** An address step (MAIL FROM, RCPT TO) as smtp-server calls it: the work's Error is the refusal, undefined the 250. */
  const guarded = (step: string, work: (address: SMTPServerAddress, session: SMTPServerSession) => Promise<Error | undefined>) =>
    (address: SMTPServerAddress, session: SMTPServerSession, callback: (error?: Error | null) => void): void => {
      work(address, session).then((error) => callback(error ?? null), (error: unknown) => callback(failure(error, session, step)));
    };

  const server = new SMTPServer({
    name: options.name,
    secure: options.secure,
    logger: false,
    disableReverseLookup: true,
    ...(options.tls === undefined ? {} : { key: options.tls.key, cert: options.tls.cert }),
    hideSTARTTLS: options.tls === undefined || options.secure,
    disabledCommands: options.tls === undefined ? ['STARTTLS'] : [],
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    // TLS is required for AUTH from anywhere but loopback; onAuth says so (538), in herald's words.
    allowInsecureAuth: true,
    hideENHANCEDSTATUSCODES: false,
    hideDSN: true,
    hideREQUIRETLS: true,
    size: options.maxBytes,
    socketTimeout: options.socketTimeoutMs ?? IDLE_MS,
    closeTimeout: 1_000,
    maxClients: 10_000,

    onConnect(session, callback) {
      metrics.submissionConnected();
      const open = (perAddress.get(session.remoteAddress) ?? 0) + 1;
      perAddress.set(session.remoteAddress, open);
      callback(open > options.maxConnectionsPerAddress ? refuse(REPLIES.tooManyConnections, session) : null);
    },
    onClose(session) {
      states.delete(session.id);
      const open = (perAddress.get(session.remoteAddress) ?? 1) - 1;
      if (open <= 0) perAddress.delete(session.remoteAddress);
      else perAddress.set(session.remoteAddress, open);
    },

    onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, callback: (error: Error | null | undefined, response?: { user: unknown }) => void) {
      const address = session.remoteAddress;
      const work = async (): Promise<Error | Submitter> => {
        if (session.secure !== true && !LOOPBACK.test(address)) return refuse(REPLIES.authNeedsTls, session);
        if (await brake.braked(address)) return refuse(REPLIES.authBraked, session);
        const submitter = await authenticateSubmitter(keys, auth.password ?? '', address);
        if (!submitter.ok) {
          if (submitter.rejection.code === 'invalidApiKey') await brake.failed(address);
          // The address and the user name, never the password: it is a key.
          return refuse(replyToRejection(submitter.rejection.code), session, { username: auth.username });
        }
        stateOf(session).submitter = submitter.value;
        return submitter.value;
      };
      work().then(
        (outcome) => (outcome instanceof Error ? callback(outcome) : callback(null, { user: outcome.accountId })),
        (error: unknown) => callback(failure(error, session, 'auth')),
      );
    },

    onMailFrom: guarded('mail', async (address: SMTPServerAddress, session: SMTPServerSession) => {
      const state = stateOf(session);
      state.account = undefined;
      state.recipients = 0;
      state.refusedRecipients = 0;
      const { submitter } = state;
      if (submitter === undefined) return refuse(replyToRejection('invalidApiKey'), session);
      const account = await submittingAccount(keys, submitter);
      if (!account.ok) return refuse(replyToRejection(account.rejection.code), session, { mailFrom: address.address });
      // Each message is one request of the account's rate, counted where the API counts, before what it asks is looked at.
      const decision = await deps.rateCounter.consume(account.value.id, account.value.rateLimitPerSecond);
      if (decision === 'unavailable') return refuse(replyToRejection('storeUnavailable'), session);
      if (!decision.allowed) return refuse(REPLIES.rateLimited, session, { accountId: account.value.id });
      const sender = await checkEnvelopeSender(keys, account.value, address.address);
      if (!sender.ok) return refuse(replyToRejection(sender.rejection.code), session, { mailFrom: address.address });
      state.account = account.value;
      state.envelopeFrom = address.address;
      return undefined;
    }),

    onRcptTo: guarded('rcpt', async (address: SMTPServerAddress, session: SMTPServerSession) => {
      const state = stateOf(session);
      const { account, submitter } = state;
      if (account === undefined || submitter === undefined) return refuse(replyToRejection('invalidApiKey'), session);
      const refused = (reply: SubmissionReply): Error => {
        state.refusedRecipients += 1;
        if (state.refusedRecipients > REFUSED_RECIPIENTS_BEFORE_CLOSE) closeConnection(server, session.id, REPLIES.tooManyCommands);
        return refuse(reply, session, { rcptTo: address.address });
      };
      if (state.recipients >= keys.limits.maxEmailRecipients) return refused(REPLIES.tooManyRecipients);
      if (parseAddress(address.address) === null) return refused(REPLIES.badAddress);
      // Refused here rather than after DATA, so the other recipients still go (the debit after DATA stays the rule).
      if (submitter.mode === 'live' && account.messagesLeft < state.recipients + 1) return refused(replyToRejection('noMessagesLeft'));
      state.recipients += 1;
      return undefined;
    }),

    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null, message?: string) => void) {
      const chunks: Buffer[] = [];
      let size = 0;
      let cut = false;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= options.maxBytes) {
          chunks.push(chunk);
        } else if (!cut) {
          // Past the limit nothing more is read: the reply goes now and the connection closes.
          cut = true;
          chunks.length = 0;
          metrics.submissionObserved(REPLIES.tooLarge.outcome);
          log.info({ address: session.remoteAddress, reason: REPLIES.tooLarge.outcome, bytes: size }, 'SMTP submission refused');
          closeConnection(server, session.id, REPLIES.tooLarge);
        }
      });
      stream.on('error', (error: Error) => callback(error));
      stream.on('end', () => {
        if (cut) return;
        if (stream.sizeExceeded) {
          callback(refuse(REPLIES.tooLarge, session, { bytes: size }));
          return;
        }
        receive(session, Buffer.concat(chunks)).then(
          (outcome) => (outcome instanceof Error ? callback(outcome) : callback(null, outcome)),
          (error: unknown) => callback(failure(error, session, 'data')),
        );
      });
    },
  });

  /** The message of a transaction: read, then sent (under its idempotency key when it has one); the 250's text, or the refusal. */
  async function receive(session: SMTPServerSession, raw: Buffer): Promise<Error | string> {
    const state = stateOf(session);
    const { account, submitter, envelopeFrom } = state;
    if (account === undefined || submitter === undefined || envelopeFrom === undefined) return refuse(replyToRejection('invalidApiKey'), session);
    const rcptTo = session.envelope.rcptTo.map((r) => r.address);
    const read = await readSubmittedMessage(raw, { mailFrom: envelopeFrom, rcptTo }, keys.limits, keys.clock());
    if (!read.ok) return refuse(replyToRejection(read.rejection.code, read.rejection.detail), session);
    const email = read.value;
    // The session's id stands for the request's: the worker's delivery lines carry it, as they carry an HTTP request's id.
    const send = (sendDeps: KeyDeps): Promise<Result<EmailAccepted>> => submitEmail({ ...sendDeps, requestId: `smtp-${session.id}` }, account, submitter.mode, email);
    let accepted: EmailAccepted;
    let replayed = false;
    if (email.idempotencyKey === null) {
      const result = await send(keys);
      if (!result.ok) return refuse(replyToRejection(result.rejection.code, result.rejection.detail), session);
      accepted = result.value;
    } else {
      await purgeExpiredKeysIfDue(keys).catch((error: unknown) => log.warn({ err: error }, 'expired idempotency keys not purged'));
      const outcome = await idempotentSend(keys, { accountId: account.id, mode: submitter.mode, key: email.idempotencyKey, fingerprint: fingerprintOf(email, rcptTo) }, send);
      if (outcome.kind === 'answered') {
        if (!outcome.result.ok) return refuse(replyToRejection(outcome.result.rejection.code, outcome.result.rejection.detail), session);
        accepted = outcome.result.value;
      } else {
        accepted = JSON.parse(outcome.answer) as EmailAccepted;
        replayed = true;
      }
    }
    metrics.submissionObserved(replayed ? 'replayed' : 'accepted');
    const msgids = accepted.to.map((r) => r.msgid);
    log.info({ address: session.remoteAddress, accountId: account.id, msgid: msgids[0], messages: msgids.length, bytes: raw.length, replayed, mode: submitter.mode }, 'SMTP submission accepted');
    return queuedText(msgids);
  }

  // Every API process of a machine takes submissions on the same port (herald-api@ units: docs/deployment.md).
  const port = await listenSmtp(server, options.port, options.host, log, 'SMTP submission connection error', options.port !== 0);
  return {
    port,
    reloadTls: (tls) => server.updateSecureContext({ key: tls.key, cert: tls.cert }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `2.0.0 Ok: queued as <msgid>` (after the 250), or the first msgid and how many more for several recipients. */
export function queuedText(msgids: readonly string[]): string {
  const [first] = msgids;
  return msgids.length === 1 ? `2.0.0 Ok: queued as ${first}` : `2.0.0 Ok: queued as ${first} and ${msgids.length - 1} more (${msgids.length} messages)`;
}

/**
 * What makes two submissions under one X-Herald-Idempotency-Key the same submission: the
 * envelope, From and Subject. Not the body: SMTP libraries write a new Message-ID, Date and
 * multipart boundary each time they send the same mail (docs/smtp-submission.md).
 */
function fingerprintOf(email: { readonly envelopeFrom: string; readonly from: { readonly email: string }; readonly subject: string }, rcptTo: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(['smtp', email.envelopeFrom, rcptTo, email.from.email, email.subject])).digest('hex');
}

/** Sends `reply` on the session's connection and closes it: a client past its bounds is not read any further. */
function closeConnection(server: SMTPServer, sessionId: string, reply: SubmissionReply): void {
  for (const connection of server.connections) {
    if (connection.id !== sessionId) continue;
    connection.send(reply.code, `${reply.enhanced} ${reply.text}`);
    connection.close();
    return;
  }
}
