import type { BenchChannel } from './common.ts';
import { emailRequest } from './email-content.ts';
import { smsRequest } from './sms-content.ts';

// The one request of each send operation that the accept and memory benchmarks post,
// the same to herald and to the bare Fastify baseline: one recipient each.

export const SEND_PATHS: Record<BenchChannel, string> = {
  email: '/v1/email',
  sms: '/v1/sms/send',
  whatsapp: '/v1/whatsapp/sendTemplateMessage',
};

/** The JSON body; WhatsApp names a template of the herald account (any id of the same length for the baseline). */
export function acceptBody(channel: BenchChannel, whatsappTemplateId: string): string {
  switch (channel) {
    case 'email':
      return JSON.stringify(emailRequest(0));
    case 'sms':
      return JSON.stringify(smsRequest(0));
    case 'whatsapp':
      return JSON.stringify({ destination: '5215512345678', templateId: whatsappTemplateId, params: ['123456'] });
  }
}
