// Email templates (/v1/email/templates) and the WhatsApp templates the operator recorded.
import { api } from './http.ts';
import type { EmailTemplateSummary, EmailTemplateView, Rendered, RenderInput, WhatsappTemplateView } from './types.ts';

const templatePath = (templateId: string): string => `/v1/email/templates/${encodeURIComponent(templateId)}`;

export const templateKeys = {
  all: ['templates'],
  detail: (templateId: string | undefined) => ['template', templateId],
  whatsapp: ['whatsapp-templates'],
  /** A template editor's preview of what it renders. */
  render: (input: unknown) => ['render', input],
} as const;

export const templatesQuery = {
  queryKey: templateKeys.all,
  queryFn: () => api<{ templates: EmailTemplateSummary[] }>('/v1/email/templates'),
} as const;

export const templateQuery = (templateId: string | undefined) => ({
  queryKey: templateKeys.detail(templateId),
  queryFn: () => api<EmailTemplateView>(templatePath(templateId ?? '')),
}) as const;

export const whatsappTemplatesQuery = {
  queryKey: templateKeys.whatsapp,
  queryFn: () => api<{ templates: WhatsappTemplateView[] }>('/v1/whatsapp/templates'),
} as const;

/** Renders with the renderer POST /v1/email uses (a 400 names a syntax error). */
export const renderTemplate = (input: RenderInput) => api<Rendered>('/v1/email/templates/render', { method: 'POST', body: input });

export interface TemplateInput { name: string; html: string; subject: string | null; text: string | null }

export const createTemplate = (body: TemplateInput) => api<EmailTemplateView>('/v1/email/templates', { method: 'POST', body });

export const replaceTemplate = (templateId: string, body: TemplateInput) => api<EmailTemplateView>(templatePath(templateId), { method: 'PUT', body });

/** Refused (409) while a scheduled, running or paused campaign uses the template. */
export const deleteTemplate = (templateId: string) => api<undefined>(templatePath(templateId), { method: 'DELETE' });
