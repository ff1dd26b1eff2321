import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { serveParent } from './child.ts';
import { submittedEmail } from './email-content.ts';
import { sendInLanes } from './send-lanes.ts';

// The applications of smtp-submit: a nodemailer pool of SMTP connections to a submission
// server (herald's, or Postfix's smtpd), STARTTLS required (the server's certificate is
// self-signed, so not verified), AUTH when credentials are given. `prepare` builds the
// messages' options before the clock starts; `send` keeps `inFlight` sendMail calls
// pending, so every connection always has a next message waiting.

export interface SubmissionPrepare {
  readonly port: number;
  /** Pooled connections (nodemailer's maxConnections). */
  readonly connections: number;
  /** AUTH PLAIN/LOGIN with these; none: the server trusts the loopback address. */
  readonly auth: { readonly user: string; readonly pass: string } | undefined;
  /** Messages `from` … `from + count - 1` (their recipients and subjects). */
  readonly from: number;
  readonly count: number;
}

export interface SubmissionSend {
  readonly inFlight: number;
}

let mailer: ReturnType<typeof nodemailer.createTransport> | undefined;
let prepared: SendMailOptions[] = [];

serveParent(
  {},
  {
    async prepare(args) {
      const { port, connections, auth, from, count } = args as SubmissionPrepare;
      // nodemailer's default of 100 messages per connection stands: an application's pool
      // reconnects (STARTTLS and AUTH again) as often against either server.
      mailer ??= nodemailer.createTransport({
        pool: true, host: '127.0.0.1', port, secure: false, requireTLS: true, maxConnections: connections,
        ...(auth === undefined ? {} : { auth: { user: auth.user, pass: auth.pass } }),
        tls: { rejectUnauthorized: false }, disableFileAccess: true, disableUrlAccess: true, logger: false,
      });
      prepared = Array.from({ length: count }, (_, k) => ({ ...submittedEmail(from + k), date: new Date() }));
    },
    async send(args) {
      const { inFlight } = args as SubmissionSend;
      const queue = prepared;
      prepared = [];
      const transport = mailer;
      if (transport === undefined) throw new Error('prepare first');
      await sendInLanes(queue, inFlight, (mail) => transport.sendMail(mail));
    },
  },
  async () => {
    mailer?.close();
  },
);
