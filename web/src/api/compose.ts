// The Compose page's sends, through the same /v1 routes an API key uses (the session is
// accepted there), and the WhatsApp templates the account creates and submits for approval.
import { api } from './http.ts';
import type { EmailAccepted } from './messages.ts';
import type { WhatsappTemplateView } from './types.ts';

interface Address { email: string; name: string }

export interface EmailSend {
  to: { email: string }[];
  options?: { cc?: { email: string }[]; bcc?: { email: string }[] };
  from: Address;
  replyTo: Address;
  subject: string;
  body?: string;
  template_id?: string;
  variables?: Record<string, string>;
}

export const sendComposedEmail = (body: EmailSend) => api<EmailAccepted>('/v1/email', { method: 'POST', body });

export interface SmsAccepted {
  result: string;
  total_contacts: number;
  total_messages_sent: number;
  messages_left: number;
  messages?: { mobile_number: string; msgid: string }[];
}

export const sendComposedSms = (body: { mobile_numbers: string[]; message: string; from?: string }) =>
  api<SmsAccepted>('/v1/sms/send', { method: 'POST', body });

export interface WhatsappAccepted { result: string; current_balance: number; msgid?: string }

export const sendComposedWhatsapp = (body: { destination: string; templateId: string; params: string[] }) =>
  api<WhatsappAccepted>('/v1/whatsapp/sendTemplateMessage', { method: 'POST', body });

export interface NewWhatsappTemplate {
  name: string;
  language: string;
  category: string;
  body: string;
  header?: string;
  footer?: string;
}

export const createWhatsappTemplate = (body: NewWhatsappTemplate) =>
  api<WhatsappTemplateView>('/v1/whatsapp/templates', { method: 'POST', body });

/** Addresses as typed: separated by commas, semicolons or line breaks, blanks dropped. */
export const addressList = (text: string): string[] => text.split(/[,;\n]/).map((a) => a.trim()).filter((a) => a !== '');
