import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getCertificate, getCertifiedEml, publishedJwks, type CertificateView } from '../../app/certificates.ts';
import { callerOf } from '../route-access.ts';
import { sendRejection } from '../wire-errors.ts';
import { applicationError } from '../schemas/errors.ts';
import { pageCsp } from '../security-headers.ts';
import type { RouteDeps } from '../route-deps.ts';

// Certified delivery on the wire: an account reads its own certificates (JSON, or an
// HTML page for people) and the certified .eml; anybody reads the public key.

const params = { type: 'object', required: ['msgid'], properties: { msgid: { type: 'string' } } } as const;
const formatQuery = { type: 'object', properties: { format: { type: 'string', enum: ['json', 'html'], description: 'Overrides the Accept header' } } } as const;

const jwk = {
  type: 'object', required: ['kty', 'crv', 'x', 'kid'],
  properties: { kty: { const: 'OKP' }, crv: { const: 'Ed25519' }, x: { type: 'string' }, kid: { type: 'string' }, alg: { const: 'EdDSA' }, use: { const: 'sig' } },
} as const;
const jwksSchema = { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: jwk } } } as const;

const nullableText = { type: ['string', 'null'] } as const;
const receiptPayloadSchema = {
  type: 'object',
  required: [
    'msgid', 'account', 'from', 'recipient', 'subject', 'delivery', 'sha256', 'mx_host', 'mx_ip', 'smtp_transcript',
    'smtp_response', 'queue_id', 'connected_at', 'accepted_at', 'issued_at', 'issuer',
  ],
  properties: {
    msgid: { type: 'string', format: 'uuid' },
    account: { type: 'string' },
    from: { type: 'string' },
    recipient: { type: 'string' },
    subject: { type: 'string' },
    delivery: { type: 'string', enum: ['mx', 'relay', 'capture'], description: "mx: the recipient's own mail server accepted it; relay: the configured smart host did; capture: nothing left the machine (certifies composition only)" },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the .eml bytes, hex' },
    mx_host: { ...nullableText, description: 'MX host name (mx), relay host (relay), null (capture)' },
    mx_ip: { ...nullableText, description: 'The address actually connected to' },
    smtp_transcript: { type: 'array', items: { type: 'string' }, description: '`C:` client, `S:` server, `*` notes; AUTH redacted' },
    smtp_response: { ...nullableText, description: 'The 250 reply to DATA' },
    queue_id: { ...nullableText, description: "The receiving server's queue id, when its reply names one" },
    connected_at: { type: ['string', 'null'], format: 'date-time' },
    accepted_at: { type: 'string', format: 'date-time' },
    issued_at: { type: 'string', format: 'date-time' },
    issuer: { type: 'string', description: 'The installation\'s public URL' },
  },
} as const;

const certificateSchema = {
  type: 'object', required: ['msgid', 'receipt', 'evidence', 'jwks_url', 'eml_url'],
  properties: {
    msgid: { type: 'string', format: 'uuid' },
    receipt: { type: 'string', description: 'Compact JWS, header {alg: EdDSA, kid, typ: herald-delivery-receipt+jws}, payload = evidence' },
    evidence: receiptPayloadSchema,
    jwks_url: { type: 'string', format: 'uri' },
    eml_url: { type: 'string', format: 'uri' },
  },
} as const;

export function certificateRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get<{ Params: { msgid: string }; Querystring: { format?: string } }>('/v1/email/:msgid/certificate', {
    schema: {
      summary: 'The signed delivery receipt of a certified email (JSON, or an HTML page for Accept: text/html or ?format=html)',
      tags: ['certificates'], params, querystring: formatQuery,
      response: {
        200: { description: 'The certificate', content: { 'application/json': { schema: certificateSchema }, 'text/html': { schema: { type: 'string' } } } },
        404: applicationError,
      },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => {
    const view = await getCertificate(deps, callerOf(request).account.id, request.params.msgid);
    if (!view) return sendRejection(reply, { code: 'notFound' });
    if (!wantsHtml(request)) return view;
    return reply
      .header('content-security-policy', PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(certificatePage(view));
  });

  app.get<{ Params: { msgid: string } }>('/v1/email/:msgid/certificate.eml', {
    schema: {
      summary: 'The certified message exactly as delivered (the bytes whose SHA-256 the receipt carries)',
      tags: ['certificates'], params,
      response: { 200: { description: 'RFC 5322 message', content: { 'message/rfc822': { schema: { type: 'string' } } } }, 404: applicationError },
    },
    config: { access: { scope: 'email', access: 'read' } },
  }, async (request, reply) => {
    const eml = await getCertifiedEml(deps, callerOf(request).account.id, request.params.msgid);
    if (!eml) return sendRejection(reply, { code: 'notFound' });
    return reply
      .type('message/rfc822')
      .header('content-disposition', `attachment; filename="${request.params.msgid.replace(/[^0-9A-Za-z-]/g, '')}.eml"`)
      .send(eml);
  });
}

/** Public, no API key: what anybody needs to verify a receipt offline. */
export function jwksRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get('/.well-known/jwks.json', {
    schema: { summary: 'The public key that signs delivery receipts (JWKS, Ed25519)', tags: ['certificates'], response: { 200: { description: 'JSON Web Key Set (RFC 7517)', ...jwksSchema } } },
  }, async (_request, reply) => {
    const jwks = await publishedJwks(deps);
    return reply.header('cache-control', 'public, max-age=300').send(jwks);
  });
}

/**
 * `?format=html|json` decides; otherwise the Accept header: HTML when it ranks text/html
 * above JSON (a browser's `text/html,…,*\/*;q=0.8`), JSON for everything else, `*\/*` included.
 */
function wantsHtml(request: FastifyRequest<{ Querystring: { format?: string } }>): boolean {
  const format = request.query.format;
  if (format === 'html') return true;
  if (format === 'json') return false;
  const accept = request.headers.accept ?? '';
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...parameters] = part.trim().toLowerCase().split(';').map((p) => p.trim());
    const qParameter = parameters.find((p) => p.startsWith('q='));
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2));
    if (!Number.isFinite(q)) continue;
    if (range === 'text/html') html = Math.max(html, q);
    if (range === 'application/json' || range === 'application/*' || range === '*/*') json = Math.max(json, q);
  }
  return html > 0 && html > json;
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Every value on the page goes through this: subjects, addresses and SMTP replies are anybody's text. */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const DELIVERY_NOTES = {
  mx: "The recipient's own mail server (MX) accepted the message.",
  relay: 'The configured relay (smart host) accepted the message; the host and address below are the relay\'s, not the recipient\'s mail server.',
  capture: 'Capture mode: nothing left the machine. This certificate certifies only the message as composed, not that anybody received it.',
} as const;

const PAGE_STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .35rem .6rem; border-bottom: 1px solid #ddd; }
th { width: 12rem; font-weight: 600; }
pre { background: #f5f5f5; padding: .8rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
`;
/** The page's CSP: its one style element, by hash (http/security-headers.ts). */
const PAGE_CSP = pageCsp(PAGE_STYLE);

function certificatePage(view: CertificateView): string {
  const e = view.evidence;
  const row = (label: string, value: string | null): string =>
    `<tr><th>${escapeHtml(label)}</th><td>${value === null ? '<em>none</em>' : `<code>${escapeHtml(value)}</code>`}</td></tr>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Certificate of delivery ${escapeHtml(e.msgid)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>Certificate of delivery</h1>
<p>${escapeHtml(DELIVERY_NOTES[e.delivery])}</p>
<table>
${row('Message', e.msgid)}
${row('Account', e.account)}
${row('From', e.from)}
${row('Recipient', e.recipient)}
${row('Subject', e.subject)}
${row('Delivery', e.delivery)}
${row('Mail server', e.mx_host)}
${row('Address connected to', e.mx_ip)}
${row('Connected at', e.connected_at)}
${row('Accepted at', e.accepted_at)}
${row('Server reply', e.smtp_response)}
${row('Queue id', e.queue_id)}
${row('SHA-256 of the message', e.sha256)}
${row('Issued at', e.issued_at)}
${row('Issuer', e.issuer)}
</table>
<h2>SMTP transcript</h2>
<pre>${e.smtp_transcript.length === 0 ? 'No SMTP session (capture).' : escapeHtml(e.smtp_transcript.join('\n'))}</pre>
<h2>Signed receipt (JWS)</h2>
<pre>${escapeHtml(view.receipt)}</pre>
<h2>Verify it yourself</h2>
<p>Download the <a href="${escapeHtml(view.eml_url)}">message (.eml)</a> and the <a href="${escapeHtml(view.jwks_url)}">public key (JWKS)</a>.
The SHA-256 of the .eml file must equal the one above, and the receipt must verify with the key:
<code>herald certificates verify receipt.jws message.eml --jwks jwks.json</code></p>
</body>
</html>
`;
}
