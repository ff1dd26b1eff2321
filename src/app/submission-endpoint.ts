import type { SubmissionEndpoint } from '../domain/submission-endpoint.ts';

// Where applications send by SMTP, from the settings (issue 22). app/ may not import
// config.ts, so the settings it reads are named here; Config satisfies them as it is.

/** The settings of SMTP submission this reads (config.ts's names). */
export interface SubmissionSettings {
  readonly publicUrl: string;
  readonly submissionPort: number | undefined;
  readonly submissionsPort: number | undefined;
  readonly submissionPublicHost: string | undefined;
  readonly submissionTlsKey: string | undefined;
  readonly submissionTlsCert: string | undefined;
}

/** The ports as bound: `0` in the settings means a port picked at start, known only then. */
export interface BoundSubmissionPorts {
  readonly starttlsPort?: number;
  readonly implicitTlsPort?: number;
}

// An IPv6 address goes into SMTP settings bare: the URL's brackets are its syntax, not the address's.
const hostOf = (url: string): string => new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');

/** The endpoint applications are told of; undefined when both ports are off. */
export function submissionEndpointOf(settings: SubmissionSettings, bound?: BoundSubmissionPorts): SubmissionEndpoint | undefined {
  const starttlsPort = bound === undefined ? settings.submissionPort : bound.starttlsPort;
  const implicitTlsPort = bound === undefined ? settings.submissionsPort : bound.implicitTlsPort;
  if (starttlsPort === undefined && implicitTlsPort === undefined) return undefined;
  return {
    host: settings.submissionPublicHost ?? hostOf(settings.publicUrl),
    starttlsPort,
    implicitTlsPort,
    tls: settings.submissionTlsKey !== undefined && settings.submissionTlsCert !== undefined,
  };
}
