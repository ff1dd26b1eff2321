import smpp from 'smpp';
import type { ShortMessage } from 'smpp';

// The smpp library decodes short_message and message_payload as it parses a PDU: the UDH
// split into information elements and the rest turned into text by data_coding (its GSM
// table for 0 and 1, iconv for Latin-1 and UCS-2). herald reads the octets themselves
// (mo-message.ts), so they are taken back here with the library's own encoders, which is
// exact for every octet below 0x80 under 0 and 1 (checked for every septet pair and
// escape), and for Latin-1; under UCS-2 iconv drops a leading byte-order mark and an odd
// last octet, which carry no text. An octet of 0x80 or more under 0 or 1 is not GSM nor
// IA5: the library made it a space, and a space it stays.

/** The octets the SMSC sent, the UDH (with its length octet) in front as on the wire. */
export function smppOctets(value: ShortMessage | undefined, dataCoding: number): Buffer {
  if (value === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'latin1');
  const udh = udhOctets(value.udh);
  const message = value.message;
  const body = typeof message !== 'string' ? message : textOctets(message, dataCoding);
  return udh.length === 0 ? body : Buffer.concat([udh, body]);
}

function udhOctets(udh: Buffer | Buffer[] | undefined): Buffer {
  if (udh === undefined) return Buffer.alloc(0);
  const elements = Buffer.isBuffer(udh) ? udh : Buffer.concat(udh);
  return Buffer.concat([Buffer.from([elements.length]), elements]);
}

function textOctets(text: string, dataCoding: number): Buffer {
  const coding = dataCoding & 0x0f;
  if (coding === 8) return smpp.encodings.UCS2.encode(text);
  if (coding === 3) return Buffer.from(text, 'latin1');
  return smpp.encodings.ASCII.encode(text);
}
