// Where applications send by SMTP (/v1/smtp-settings, issue 22): the server's settings, the same for every account.
import { api } from './http.ts';
import type { SmtpSettings } from './types.ts';

export const smtpSettingsKeys = { all: ['smtp-settings'] } as const;

export const smtpSettingsQuery = { queryKey: smtpSettingsKeys.all, queryFn: () => api<SmtpSettings>('/v1/smtp-settings') } as const;
