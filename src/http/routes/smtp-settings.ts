import type { FastifyInstance } from 'fastify';
import { SUBMISSION_USERNAME, type SubmissionEndpoint } from '../../domain/submission-endpoint.ts';
import type { RouteDeps } from '../route-deps.ts';
import { SmtpSettingsView, type SmtpPortView } from '../schemas/smtp-settings.ts';

// GET /v1/smtp-settings: where applications send by SMTP (issue 22, docs/smtp-submission.md).
// Any key or member of the account may read it: it holds the server's settings, nothing of the account's.

/** The password field: what to give, in words; herald never shows a key again. */
export const SMTP_PASSWORD_TEXT = 'An API key of this account with the email scope (a test key\'s mail is captured, never sent)';

export function smtpSettingsView(endpoint: SubmissionEndpoint | undefined): SmtpSettingsView {
  const common = { username: SUBMISSION_USERNAME, password: SMTP_PASSWORD_TEXT };
  if (endpoint === undefined) return { enabled: false, host: null, ports: [], ...common, loopbackOnly: false };
  const ports: SmtpPortView[] = [];
  if (endpoint.starttlsPort !== undefined) ports.push({ port: endpoint.starttlsPort, security: endpoint.tls ? 'starttls' : 'none' });
  if (endpoint.implicitTlsPort !== undefined) ports.push({ port: endpoint.implicitTlsPort, security: 'tls' });
  return { enabled: true, host: endpoint.host, ports, ...common, loopbackOnly: !endpoint.tls };
}

export function smtpSettingsRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get('/v1/smtp-settings', {
    schema: {
      summary: 'Where applications send email by SMTP submission: host, ports with their TLS mode, the user name (`apikey`) and what the password is (an API key with the `email` scope)',
      tags: ['account'], response: { 200: SmtpSettingsView },
    },
    config: { access: { scope: 'any', access: 'read' } },
  }, async (): Promise<SmtpSettingsView> => smtpSettingsView(deps.submission()));
}
