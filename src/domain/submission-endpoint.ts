// Where applications send mail by SMTP (issue 22, docs/smtp-submission.md): what the web
// application's settings page shows and what `herald serve` logs once the ports are bound.

export interface SubmissionEndpoint {
  /** The host name applications connect to (HERALD_SUBMISSION_PUBLIC_HOST, or the host of HERALD_PUBLIC_URL). */
  readonly host: string;
  /** The port that takes plain SMTP and STARTTLS (HERALD_SUBMISSION_PORT, as bound); undefined when off. */
  readonly starttlsPort: number | undefined;
  /** The port of implicit TLS (HERALD_SUBMISSIONS_PORT, as bound); undefined when off. */
  readonly implicitTlsPort: number | undefined;
  /** A certificate is configured: STARTTLS is offered and AUTH needs TLS; without one, AUTH is offered to loopback clients only. */
  readonly tls: boolean;
}

/** The user name documented for SMTP AUTH: herald reads only the password, an API key with the `email` scope. */
export const SUBMISSION_USERNAME = 'apikey';
