import { simpleParser } from 'mailparser';
import type { EmailPayload } from '../domain/outbound.ts';

// An email's HTML and text as the views show them (the preview, the simulator's clicks). An
// API send stores them in its payload; an SMTP submission keeps them only in its MIME (the
// 250 waits on no body parse), so they are read from it here, when someone asks.

const PARSER_OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, checksumAlgo: false } as const;

export interface EmailBodies {
  readonly html: string | null;
  readonly text: string | null;
}

export async function emailBodiesOf(payload: Partial<EmailPayload>): Promise<EmailBodies> {
  if (payload.submitted === undefined) {
    return { html: typeof payload.html === 'string' ? payload.html : null, text: typeof payload.text === 'string' ? payload.text : null };
  }
  const parsed = await simpleParser(Buffer.from(payload.submitted.mime, 'base64'), PARSER_OPTIONS);
  return {
    html: typeof parsed.html === 'string' && parsed.html !== '' ? parsed.html : null,
    text: parsed.text !== undefined && parsed.text !== '' ? parsed.text : null,
  };
}
