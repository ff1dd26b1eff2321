import { GSM7_BASIC, GSM7_ESCAPE, GSM7_EXTENSION } from '../../domain/gsm7.ts';

// A mobile-originated SMS (a deliver_sm that is not a receipt, or a data_sm) read from
// its octets: who wrote, to which of our senders, the text by data_coding, and, for a
// part of a concatenated message, its reference, count and place (UDH or SAR TLVs).
// Pure: the session hands over the octets as they came (smpp-octets.ts).

/** What the PDU carried, the user data as octets with its UDH (if any) still in front. */
export interface MoPdu {
  readonly sourceAddr: string;
  readonly sourceAddrTon: number;
  readonly destinationAddr: string;
  readonly destAddrTon: number;
  readonly esmClass: number;
  readonly dataCoding: number;
  readonly shortMessage: Buffer;
  /** TLV 0x0424, used when short_message is empty (data_sm has only this). */
  readonly messagePayload?: Buffer | undefined;
  /** TLVs 0x020C, 0x020E, 0x020F, when all three came. */
  readonly sar?: { readonly reference: number; readonly total: number; readonly part: number } | undefined;
}

interface MoCommon {
  /** The person: `+` and digits for an international number, otherwise as the SMSC wrote it. */
  readonly from: string;
  /** Our sender as accounts write it: `+digits` for an international number, a short code or name as is. */
  readonly to: string;
  readonly text: string;
}

/** A whole message, or one part of a concatenated one (reassembled by app/receive-sms-part.ts). */
export type MoMessage =
  | (MoCommon & { readonly kind: 'whole' })
  | (MoCommon & { readonly kind: 'part'; readonly reference: number; readonly total: number; readonly part: number });

/** A concatenated message has at most this many parts (the count is one octet). */
export const MAX_MO_PARTS = 255;
/** A part's text is cut after this many UTF-16 code units (a segment is 160 at most; message_payload can be far longer). */
export const MAX_MO_PART_LENGTH = 1000;

const UDH_INDICATOR = 0x40;
const TON_INTERNATIONAL = 1;
const IEI_CONCAT_8BIT = 0x00;
const IEI_CONCAT_16BIT = 0x08;

export function decodeMo(pdu: MoPdu): MoMessage {
  const octets = pdu.shortMessage.length > 0 || pdu.messagePayload === undefined ? pdu.shortMessage : pdu.messagePayload;
  const { concat, userData } = (pdu.esmClass & UDH_INDICATOR) !== 0 ? splitUdh(octets) : { concat: undefined, userData: octets };
  const common: MoCommon = {
    from: address(pdu.sourceAddr, pdu.sourceAddrTon),
    to: address(pdu.destinationAddr, pdu.destAddrTon),
    text: decodeText(userData, pdu.dataCoding),
  };
  const place = concat ?? pdu.sar;
  if (place === undefined || !validPlace(place)) return { kind: 'whole', ...common, text: common.text.toWellFormed() };
  return { kind: 'part', ...common, text: cut(common.text, MAX_MO_PART_LENGTH), reference: place.reference, total: place.total, part: place.part };
}

/** An international number as `+` and its digits; any other kind (national, short code, name) as written. */
function address(addr: string, ton: number): string {
  if (ton !== TON_INTERNATIONAL) return addr;
  const digits = addr.replace(/\D/g, '');
  return digits === '' ? addr : `+${digits}`;
}

/** A count of 0 or 1, or a place outside it, is not a concatenation (3GPP TS 23.040 9.2.3.24.1: ignore it). */
function validPlace(place: { readonly total: number; readonly part: number }): boolean {
  return place.total >= 2 && place.total <= MAX_MO_PARTS && place.part >= 1 && place.part <= place.total;
}

type Place = { readonly reference: number; readonly total: number; readonly part: number };

/** The user data header's concatenation element (the last one wins, as in 23.040) and the octets after the header. */
function splitUdh(octets: Buffer): { concat: Place | undefined; userData: Buffer } {
  const length = octets[0];
  if (length === undefined || length + 1 > octets.length) return { concat: undefined, userData: octets };
  let concat: Place | undefined;
  const header = octets.subarray(1, length + 1);
  // Each element: its identifier, its length, its data; one that overruns the header ends the reading.
  for (let at = 0; at + 2 <= header.length;) {
    const iei = header[at] ?? 0;
    const size = header[at + 1] ?? 0;
    if (at + 2 + size > header.length) break;
    const data = header.subarray(at + 2, at + 2 + size);
    if (iei === IEI_CONCAT_8BIT && size === 3) concat = { reference: data[0] ?? 0, total: data[1] ?? 0, part: data[2] ?? 0 };
    if (iei === IEI_CONCAT_16BIT && size === 4) concat = { reference: data.readUInt16BE(0), total: data[2] ?? 0, part: data[3] ?? 0 };
    at += 2 + size;
  }
  return { concat, userData: octets.subarray(length + 1) };
}

/**
 * By SMPP 3.4's data_coding: 0 SMSC default (GSM 03.38, one septet an octet), 1 IA5
 * (ASCII), 3 Latin-1, 8 UCS-2 big-endian (a surrogate pair kept, even split across two
 * parts: joined later), 0xF0–0xF3 GSM with a message class. Anything else is read as
 * Latin-1, which keeps every octet as one character.
 */
export function decodeText(octets: Buffer, dataCoding: number): string {
  if (dataCoding === 0 || (dataCoding & 0xfc) === 0xf0) return decodeGsm7(octets);
  if (dataCoding === 1) return decodeIa5(octets);
  if (dataCoding === 8) return decodeUcs2(octets);
  return octets.toString('latin1');
}

const EXTENSION: ReadonlyMap<number, string> = new Map(GSM7_EXTENSION.map(([ch, septet]) => [septet, ch]));

/** Unpacked septets; an escape before a septet the extension table lacks shows the basic character (23.038 6.2.1.1). */
function decodeGsm7(octets: Buffer): string {
  let text = '';
  for (let i = 0; i < octets.length; i++) {
    const septet = octets[i] ?? 0;
    if (septet > 0x7f) {
      text += '\ufffd';
      continue;
    }
    if (septet !== GSM7_ESCAPE) {
      text += GSM7_BASIC[septet] ?? '\ufffd';
      continue;
    }
    const next = octets[i + 1];
    if (next === undefined) break;
    i += 1;
    text += EXTENSION.get(next) ?? (next === GSM7_ESCAPE || next > 0x7f ? '' : (GSM7_BASIC[next] ?? ''));
  }
  return text;
}

function decodeIa5(octets: Buffer): string {
  let text = '';
  for (const octet of octets) text += octet > 0x7f ? '\ufffd' : String.fromCharCode(octet);
  return text;
}

/** Code units as they came: a lone surrogate stays, for its other half may be in the next part. An odd last octet is dropped. */
function decodeUcs2(octets: Buffer): string {
  let text = '';
  for (let i = 0; i + 1 < octets.length; i += 2) text += String.fromCharCode(octets.readUInt16BE(i));
  return text;
}

/** At most `length` code units, never ending inside a surrogate pair that is whole. */
function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  const end = /[\ud800-\udbff]/.test(text[length - 1] ?? '') && /[\udc00-\udfff]/.test(text[length] ?? '') ? length - 1 : length;
  return text.slice(0, end);
}
