import type { Outbound, WhatsappPayload } from '../../domain/outbound.ts';

/**
 * The WhatsApp Cloud API `POST /{phone-number-id}/messages` body: a template message,
 * or a text message (valid only inside the recipient's customer-service window).
 */
export function cloudApiMessageBody(message: Outbound<WhatsappPayload>): Record<string, unknown> {
  const { payload } = message;
  const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: message.recipient };
  if (payload.kind === 'text') return { ...envelope, type: 'text', text: { body: payload.text } };
  return {
    ...envelope,
    type: 'template',
    template: {
      name: payload.templateName,
      language: { code: payload.language },
      components: payload.params.length === 0 ? [] : [{ type: 'body', parameters: payload.params.map((text) => ({ type: 'text', text })) }],
    },
  };
}
