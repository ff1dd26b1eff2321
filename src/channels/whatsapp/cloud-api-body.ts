import type { Outbound, WhatsappPayload } from '../../domain/outbound.ts';

/** The WhatsApp Cloud API `POST /{phone-number-id}/messages` body for a template message. */
export function cloudApiTemplateBody(message: Outbound<WhatsappPayload>): Record<string, unknown> {
  const { payload } = message;
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.recipient,
    type: 'template',
    template: {
      name: payload.templateName,
      language: { code: payload.language },
      components: payload.params.length === 0 ? [] : [{ type: 'body', parameters: payload.params.map((text) => ({ type: 'text', text })) }],
    },
  };
}
