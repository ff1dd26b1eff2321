// Sending with herald from TypeScript, through a client generated from herald's OpenAPI
// document: every path, body and answer below is type-checked against it.
//
//   npm install openapi-fetch && npm install -D openapi-typescript
//   npx openapi-typescript https://herald.example.com/openapi.json -o herald-api.ts
//
// test/e2e/typescript-client.test.ts generates herald-api.ts from a running herald,
// type-checks this file against it and sends with each function.
import createClient from 'openapi-fetch';
import type { paths } from './herald-api.ts';

export type Herald = ReturnType<typeof createClient<paths>>;

export function heraldClient(baseUrl: string, apiKey: string): Herald {
  return createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` } });
}

/** What herald said when it refused: the status and its JSON body. */
function refused(response: Response, error: unknown): Error {
  return new Error(`herald answered ${response.status}: ${JSON.stringify(error)}`);
}

/** POST /v1/email (operationId sendEmail): one msgid per recipient. */
export async function sendEmail(herald: Herald): Promise<string[]> {
  const { data, error, response } = await herald.POST('/v1/email', {
    body: {
      to: [{ email: 'ana@example.org' }],
      from: { email: 'news@example.com', name: 'Example News' },
      replyTo: { email: 'help@example.com', name: 'Help desk' },
      subject: 'Hello from herald',
      body: '<p>It works.</p>',
      metadata: { order: 'A-1001' },
    },
  });
  if (data === undefined) throw refused(response, error);
  return data.to.map((recipient) => recipient.msgid);
}

/** POST /v1/sms/send (sendSms): one msgid per number. */
export async function sendSms(herald: Herald): Promise<string[]> {
  const { data, error, response } = await herald.POST('/v1/sms/send', {
    body: { message: 'Your code is 1234', mobile_numbers: ['+5215512345678'] },
  });
  if (data === undefined) throw refused(response, error);
  return (data.messages ?? []).flatMap((m) => (m.msgid === undefined ? [] : [m.msgid]));
}

/** POST /v1/whatsapp/sendTemplateMessage (sendWhatsappTemplate): an approved template with its parameters. */
export async function sendWhatsappTemplate(herald: Herald, templateId: string): Promise<string | undefined> {
  const { data, error, response } = await herald.POST('/v1/whatsapp/sendTemplateMessage', {
    body: { destination: '+5215512345678', templateId, params: ['Ana', '1234'] },
  });
  if (data === undefined) throw refused(response, error);
  return data.msgid;
}

/** POST /v1/whatsapp/sendMessage (sendWhatsappMessage): free text, only within 24 hours of the destination's last message. */
export async function sendWhatsappMessage(herald: Herald): Promise<string | undefined> {
  const { data, error, response } = await herald.POST('/v1/whatsapp/sendMessage', {
    body: { destination: '+5215512345678', message: 'Your order has shipped.' },
  });
  if (data === undefined) throw refused(response, error);
  return data.msgid;
}

/** GET /v1/messages/{msgid} (getMessage): the status and its events. */
export async function messageStatus(herald: Herald, msgid: string): Promise<string> {
  const { data, error, response } = await herald.GET('/v1/messages/{msgid}', { params: { path: { msgid } } });
  if (data === undefined) throw refused(response, error);
  return data.status;
}
