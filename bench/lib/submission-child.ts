import type { SendMailOptions } from 'nodemailer';
import { submittedEmail } from './email-content.ts';
import { serveNodemailer } from './nodemailer-sender.ts';

// The applications of smtp-submit: a nodemailer pool of SMTP connections to a submission
// server (herald's, or Postfix's smtpd), STARTTLS required (the server's certificate is
// self-signed, so not verified), AUTH when credentials are given. The parent keeps two
// sendMail calls pending per connection, so none idles between a 250 and its next MAIL FROM.

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

serveNodemailer((args) => {
  const { port, connections, auth, from, count } = args as SubmissionPrepare;
  return {
    // nodemailer's default of 100 messages per connection stands: an application's pool
    // reconnects (STARTTLS, and AUTH for herald) as often against either server.
    pool: {
      pool: true, host: '127.0.0.1', port, secure: false, requireTLS: true, maxConnections: connections,
      ...(auth === undefined ? {} : { auth: { user: auth.user, pass: auth.pass } }),
      tls: { rejectUnauthorized: false }, disableFileAccess: true, disableUrlAccess: true, logger: false,
    },
    messages: Array.from({ length: count }, (_, k): SendMailOptions => ({ ...submittedEmail(from + k), date: new Date() })),
  };
});
