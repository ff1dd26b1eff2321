import { isJsonObject, ownField } from '../../domain/json-object.ts';
import { parseJson } from './cloud-api-outcome.ts';
import { CLOUD_API_TIMEOUT_MS, describeError, readCapped } from './cloud-api-transport.ts';

// Meta's template management: POST {baseUrl}/{waba-id}/message_templates with the
// account's token. A template is submitted once; Meta answers with its id and status
// (usually PENDING) or refuses it with an error whose text says why.

export interface TemplateToSubmit {
  readonly name: string;
  readonly language: string;
  readonly category: string;
  readonly body: string;
  readonly paramCount: number;
  readonly header: string | null;
  readonly footer: string | null;
}

export type SubmitAnswer =
  | { readonly kind: 'accepted'; readonly id: string; readonly status: string }
  | { readonly kind: 'refused'; readonly reason: string }
  /** No answer, a 429 or a 5xx: worth trying again later. */
  | { readonly kind: 'retry'; readonly reason: string };

export interface TemplateClientOptions {
  /** The Graph API root with its version (HERALD_WHATSAPP_TRANSPORT). */
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

const REASON_MAX = 500;

/** The request body Meta's template management takes: components for header, body (with examples) and footer. */
export function templateRequestBody(template: TemplateToSubmit): Record<string, unknown> {
  // Meta asks for sample values of a body with parameters; the placeholders' own numbers serve.
  const samples = Array.from({ length: template.paramCount }, (_, i) => `sample ${i + 1}`);
  const components = [
    ...(template.header === null ? [] : [{ type: 'HEADER', format: 'TEXT', text: template.header }]),
    { type: 'BODY', text: template.body, ...(samples.length === 0 ? {} : { example: { body_text: [samples] } }) },
    ...(template.footer === null ? [] : [{ type: 'FOOTER', text: template.footer }]),
  ];
  return { name: template.name, language: template.language, category: template.category, components };
}

/** Meta's own words for a refusal: `error_user_msg`, else `message`, else the status. */
function refusalReason(status: number, text: string): string {
  const parsed = parseJson(text);
  const error = isJsonObject(parsed) ? ownField(parsed, 'error') : undefined;
  const said = isJsonObject(error) ? [ownField(error, 'error_user_msg'), ownField(error, 'message')].find((v) => typeof v === 'string' && v !== '') : undefined;
  return (typeof said === 'string' ? said : `HTTP ${status}`).slice(0, REASON_MAX);
}

/** Submits one template to the WhatsApp Business account `businessAccountId`. */
export async function submitCloudApiTemplate(
  options: TemplateClientOptions, businessAccountId: string, accessToken: string, template: TemplateToSubmit, signal: AbortSignal,
): Promise<SubmitAnswer> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? CLOUD_API_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string;
  try {
    const response = await (options.fetch ?? fetch)(`${base}/${encodeURIComponent(businessAccountId)}/message_templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(templateRequestBody(template)),
      // A redirect would carry the token elsewhere.
      redirect: 'manual',
      signal: AbortSignal.any([signal, timeout]),
    });
    status = response.status;
    text = await readCapped(response);
  } catch (error) {
    if (timeout.aborted) return { kind: 'retry', reason: `no answer within ${timeoutMs} ms` };
    return { kind: 'retry', reason: `network error: ${describeError(error)}` };
  }
  if (status >= 200 && status < 300) {
    const parsed = parseJson(text);
    const id = isJsonObject(parsed) ? ownField(parsed, 'id') : undefined;
    const answered = isJsonObject(parsed) ? ownField(parsed, 'status') : undefined;
    if (typeof id !== 'string' || id === '') return { kind: 'retry', reason: `HTTP ${status} without a template id` };
    return { kind: 'accepted', id, status: typeof answered === 'string' ? answered : 'PENDING' };
  }
  const reason = refusalReason(status, text).replaceAll(accessToken, '[redacted]');
  if (status === 429 || status >= 500) return { kind: 'retry', reason };
  return { kind: 'refused', reason };
}
