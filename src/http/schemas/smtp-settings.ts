// Where applications send by SMTP (GET /v1/smtp-settings, issue 22): what the web
// application's settings page shows. camelCase `loopbackOnly` as issue 22 names it.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.ts';

export const SmtpPortView = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  security: Type.Union([Type.Literal('starttls'), Type.Literal('tls'), Type.Literal('none')], {
    description: '`starttls`: plain SMTP upgraded with STARTTLS (HERALD_SUBMISSION_PORT with a certificate); `tls`: implicit TLS (HERALD_SUBMISSIONS_PORT); `none`: no certificate, plain SMTP',
  }),
});
export type SmtpPortView = Static<typeof SmtpPortView>;

export const SmtpSettingsView = Type.Object({
  enabled: Type.Boolean({ description: 'Whether this server runs SMTP submission (HERALD_SUBMISSION_PORT or HERALD_SUBMISSIONS_PORT)' }),
  host: Nullable(Type.String({ description: 'The host applications connect to (HERALD_SUBMISSION_PUBLIC_HOST, or the host of HERALD_PUBLIC_URL); null when off' })),
  ports: Type.Array(SmtpPortView, { description: 'STARTTLS (or plain) first, then implicit TLS; empty when off' }),
  username: Type.String({ description: 'The SMTP AUTH user name, `apikey` (herald reads only the password)' }),
  password: Type.String({ description: 'What to give as the password: in words, never a key' }),
  loopbackOnly: Type.Boolean({ description: 'Submission runs without a certificate: AUTH is offered to clients on the loopback address only' }),
});
export type SmtpSettingsView = Static<typeof SmtpSettingsView>;
