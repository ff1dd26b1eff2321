// Line breaks as SMTP carries them. nodemailer writes a bare LF as CRLF both when it
// renders (capture, certified bytes) and when it sends, but a bare CR only on the wire:
// its SMTP data stream turns it into CRLF after the DKIM signature was computed, so
// the capture differed from what the peer received and the body hash failed there.
// Every text that ends up in a MIME line is therefore written with CRLF breaks before
// nodemailer sees it, and rendering and sending agree byte for byte.

const LINE_BREAK = /\r\n|\r|\n/g;

/** Every line break (CRLF, a bare CR, a bare LF) written as CRLF; linear in the text. */
export function withCrlfBreaks(text: string): string {
  return text.replace(LINE_BREAK, '\r\n');
}

/** Every line break as a space, as validation writes a subject: a header value is one logical line. */
export function withoutLineBreaks(text: string): string {
  return text.replace(LINE_BREAK, ' ');
}

/**
 * Bytes with CRLF breaks, byte for byte otherwise (latin1 maps each byte to one
 * character and back): for content that nodemailer sends without a transfer encoding.
 */
export function bytesWithCrlfBreaks(bytes: Buffer): Buffer {
  if (!bytes.includes(13) && !bytes.includes(10)) return bytes;
  return Buffer.from(withCrlfBreaks(bytes.toString('latin1')), 'latin1');
}

/**
 * nodemailer never encodes a message/* attachment (RFC 2046 §5.2.1 allows only 7bit,
 * 8bit or binary there), so its line breaks go out as they are and must be CRLF too.
 */
export function isSentUnencoded(contentType: string): boolean {
  return /^message\//i.test(contentType.trim());
}
