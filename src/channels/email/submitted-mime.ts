import { Readable, Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import mailsplit, { type Headers, type MimeNode } from 'mailsplit';

// An SMTP submission's message goes out as its client wrote it (docs/smtp-submission.md):
// the stored bytes (Bcc and X-Herald-* already removed, lines CRLF, a Date added at
// acceptance), plus what each copy needs of its own — a Message-ID at herald's host when
// the client gave none, the one-click List-Unsubscribe when it gave none, the tracked
// HTML when tracking was asked for — then the same VERP envelope and DKIM signature as
// an API message. Only the root's header block and the HTML parts are touched; every
// other byte (parts, attachments, charsets, boundaries) is the client's.

const HEADER_END = Buffer.from('\r\n\r\n');

/** What one copy of a submitted message gets that its client may not have written. */
export interface SubmittedCopy {
  /** `<msgid@host>`, used when the client wrote no Message-ID. */
  readonly messageId: string;
  /** The one-click unsubscribe URL, used when the client wrote no List-Unsubscribe. */
  readonly unsubscribeUrl: string;
  /** Rewrites each HTML body part (tracking); absent: the body is not touched at all. */
  readonly html?: (text: string) => Promise<string>;
}

/** The bytes of one copy of a submitted message. */
export async function submittedCopy(mime: Buffer, copy: SubmittedCopy): Promise<Buffer> {
  const editRoot = (headers: Headers): void => {
    // Added at the top, in this order: what the client wrote stays below, as it wrote it.
    if (!headers.hasHeader('list-unsubscribe')) {
      headers.add('List-Unsubscribe-Post', 'List-Unsubscribe=One-Click');
      headers.add('List-Unsubscribe', `<${copy.unsubscribeUrl}>`);
    }
    if (!headers.hasHeader('message-id')) headers.add('Message-ID', copy.messageId);
  };
  return copy.html === undefined ? withRootHeaders(mime, editRoot) : rewriteMessage(mime, editRoot, copy.html);
}

/** The message with its root header block edited and the body untouched: no MIME parse beyond the headers. */
export function withRootHeaders(mime: Buffer, edit: (headers: Headers) => void): Buffer {
  const end = mime.indexOf(HEADER_END);
  // A message of headers only (no blank line) is all header block.
  const headerBytes = end < 0 ? mime : mime.subarray(0, end + 2);
  const headers = new mailsplit.Headers(headerBytes);
  edit(headers);
  return Buffer.concat([headers.build('\r\n'), end < 0 ? Buffer.alloc(0) : mime.subarray(end + HEADER_END.length)]);
}

/** A text/html part of the message's text (not an attached .html file). */
const isHtmlBody = (node: MimeNode): boolean =>
  node.contentType === 'text/html' && !/^\s*attachment/i.test(node.headers.getFirst('content-disposition'));

/**
 * The message with its root headers edited and every HTML body part rewritten by `html`,
 * split and joined by mailsplit: a rewritten part is written back as UTF-8 in the
 * transfer encoding it had (quoted-printable when it had none). A part in a charset
 * this runtime cannot decode goes out as it was.
 */
async function rewriteMessage(mime: Buffer, edit: (headers: Headers) => void, html: (text: string) => Promise<string>): Promise<Buffer> {
  let root = true;
  const rootEdit = new Transform({
    objectMode: true,
    transform(chunk: { type: string; headers?: Headers }, _encoding, callback) {
      if (root && chunk.type === 'node' && chunk.headers !== undefined) {
        root = false;
        edit(chunk.headers);
      }
      callback(null, chunk);
    },
  });
  const rewriter = new mailsplit.Rewriter(isHtmlBody);
  rewriter.on('node', ({ node, decoder, encoder }) => {
    buffer(decoder).then(async (bytes) => {
      let text: string;
      try {
        text = new TextDecoder(node.charset === false ? 'utf-8' : node.charset, { fatal: false }).decode(bytes);
      } catch {
        encoder.end(bytes);
        return;
      }
      node.setCharset('utf-8');
      encoder.end(Buffer.from(await html(text), 'utf8'));
    }).catch((error: unknown) => encoder.destroy(error instanceof Error ? error : new Error(String(error))));
  });
  const joiner = new mailsplit.Joiner();
  const chunks: Buffer[] = [];
  joiner.on('data', (chunk: Buffer) => chunks.push(chunk));
  await pipeline(Readable.from([mime]), new mailsplit.Splitter(), rootEdit, rewriter, joiner);
  return Buffer.concat(chunks);
}
