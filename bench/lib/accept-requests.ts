import type { BenchChannel } from './common.ts';
import { emailRequest } from './email-content.ts';
import { smsRequest } from './sms-content.ts';

// The request of each send operation that the accept and memory benchmarks post, the
// same to herald and to the bare Fastify baseline: one recipient each, a different one
// per request (an address or number seen once, as in real traffic, so that nothing
// herald may remember of a recipient flatters it).

export const SEND_PATHS: Record<BenchChannel, string> = {
  email: '/v1/email',
  sms: '/v1/sms/send',
  whatsapp: '/v1/whatsapp/sendTemplateMessage',
};

/** The i-th request's JSON body; WhatsApp names a template of the herald account (any id of the same length for the baseline). */
export type AcceptBodies = (i: number) => string;

export function acceptBodies(channel: BenchChannel, whatsappTemplateId: string): AcceptBodies {
  // Built once around a marker, then spliced: the load generator shares the machine.
  const MARK = 987654321;
  const template = (() => {
    switch (channel) {
      case 'email':
        return JSON.stringify(emailRequest(MARK));
      case 'sms':
        return JSON.stringify(smsRequest(MARK));
      case 'whatsapp':
        return JSON.stringify({ destination: `52155${MARK}`, templateId: whatsappTemplateId, params: ['123456'] });
    }
  })();
  const parts = template.split(String(MARK));
  // Nine digits, as the marker: 987654322, 987654323, …
  return (i) => parts.join(String(MARK + 1 + (i % 10_000_000)));
}
