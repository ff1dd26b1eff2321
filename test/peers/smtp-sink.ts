import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

// An SMTP server on 127.0.0.1 (port 0) that keeps every message it receives: the
// envelope (with the DSN parameters, when told to offer DSN) and the raw bytes after dot-unstuffing. It offers STARTTLS with smtp-server's
// bundled self-signed localhost certificate (clients must not verify it), and can be
// told to refuse the next RCPT TO / DATA with a given reply, or to stop listening so
// that connections are refused outright.

export interface ReceivedMessage {
  readonly mailFrom: string | false;
  readonly rcptTo: readonly string[];
  readonly raw: Buffer;
  /** The session ran over TLS (STARTTLS) when the message came. */
  readonly secure: boolean;
  /** The name the client gave in EHLO/HELO. */
  readonly heloName: string;
  /** Which TCP connection (1, 2, …) carried it. */
  readonly connection: number;
  readonly user: string | undefined;
  /** The RFC 3461 parameters as smtp-server parsed them; undefined unless the sink offers DSN. */
  readonly dsn: ReceivedDsn | undefined;
}

export interface ReceivedDsn {
  /** From MAIL FROM: RET and ENVID. */
  readonly ret: string | null;
  readonly envid: string | null;
  /** From RCPT TO: NOTIFY (split at commas) and ORCPT. */
  readonly notify: readonly string[] | null;
  readonly orcpt: string | null;
}

/** smtp-server's DSN fields, which its type declarations leave out. */
interface ParsedDsnEnvelope {
  readonly dsn?: { readonly ret: string | null; readonly envid: string | null };
  readonly rcptTo: readonly { readonly dsn?: { readonly notify?: string[]; readonly orcpt?: string } }[];
}

function receivedDsn(envelope: ParsedDsnEnvelope): ReceivedDsn | undefined {
  if (envelope.dsn === undefined) return undefined;
  const rcpt = envelope.rcptTo[0]?.dsn;
  return { ret: envelope.dsn.ret, envid: envelope.dsn.envid, notify: rcpt?.notify ?? null, orcpt: rcpt?.orcpt ?? null };
}

export interface SinkFailure {
  readonly stage: 'mail' | 'rcpt' | 'data';
  readonly code: number;
  /** The reply text after the code, e.g. `5.1.1 <x@y>: user unknown`. */
  readonly message: string;
}

export interface SmtpSink {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly messages: ReceivedMessage[];
  /** TCP connections accepted so far. */
  connections(): number;
  failNext(failure: SinkFailure): void;
  /** Stops (true) or resumes (false) listening: while stopped, connecting gets ECONNREFUSED. */
  refuseConnections(refuse: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface SinkOptions {
  /** Require AUTH (only offered after STARTTLS) with these credentials. */
  readonly auth?: { readonly user: string; readonly pass: string };
  /** Offer STARTTLS (default true). Its certificate is smtp-server's bundled, expired one. */
  readonly starttls?: boolean;
  /** Offer DSN (RFC 3461) in EHLO and keep the parameters (default false, as smtp-server). */
  readonly dsn?: boolean;
  /** TLS from the first byte (an smtps:// relay, port 465 style) instead of STARTTLS; same certificate. */
  readonly implicitTls?: boolean;
}

export async function startSmtpSink(options: SinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedMessage[] = [];
  const failures: SinkFailure[] = [];
  const connectionOf = new Map<string, number>();
  let accepted = 0;

  const takeFailure = (stage: SinkFailure['stage']): Error | undefined => {
    const index = failures.findIndex((f) => f.stage === stage);
    if (index < 0) return undefined;
    const [failure] = failures.splice(index, 1);
    return failure === undefined ? undefined : Object.assign(new Error(failure.message), { responseCode: failure.code });
  };

  const server = new SMTPServer({
    logger: false,
    closeTimeout: 100,
    // No reverse look-up of the client: no query may leave loopback.
    disableReverseLookup: true,
    hideSTARTTLS: options.starttls === false,
    hideDSN: options.dsn !== true,
    secure: options.implicitTls === true,
    authOptional: options.auth === undefined,
    ...(options.auth === undefined ? { disabledCommands: ['AUTH'] } : {}),
    onConnect(session: SMTPServerSession, callback: (err?: Error | null) => void) {
      accepted += 1;
      connectionOf.set(session.id, accepted);
      callback();
    },
    onAuth(auth, _session, callback) {
      if (options.auth !== undefined && auth.username === options.auth.user && auth.password === options.auth.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      }
    },
    onMailFrom(_address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      callback(takeFailure('mail'));
    },
    onRcptTo(_address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      callback(takeFailure('rcpt'));
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const failure = takeFailure('data');
        if (failure !== undefined) {
          callback(failure);
          return;
        }
        messages.push({
          mailFrom: session.envelope.mailFrom === false ? false : session.envelope.mailFrom.address,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
          heloName: session.hostNameAppearsAs,
          connection: connectionOf.get(session.id) ?? 0,
          user: typeof session.user === 'string' ? session.user : undefined,
          dsn: receivedDsn(session.envelope as unknown as ParsedDsnEnvelope),
        });
        callback();
      });
    },
  });

  // A client that gives up mid-handshake (a certificate it refused) is the test's subject, not a crash.
  server.on('error', () => {});
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;

  return {
    host: '127.0.0.1',
    port,
    messages,
    connections: () => accepted,
    failNext(failure) {
      failures.push(failure);
    },
    async refuseConnections(refuse) {
      if (refuse) {
        // Stops listening at once; sessions already open carry on (close's callback would wait for them).
        server.server.close();
      } else {
        server.server.listen(port, '127.0.0.1');
        await once(server.server, 'listening');
      }
    },
    async close() {
      for (const connection of server.connections) connection.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
