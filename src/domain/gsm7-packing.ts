// GSM 03.38 text as SMPP carries it with data_coding 0 (the SMSC default alphabet),
// and its split into concatenated parts.
//
// Septets go UNPACKED, one per octet with the top bit clear: that is what SMPP v3.4
// SMSCs take on the ESME side for data_coding 0 (the SMSC packs 7-bit for the air
// interface itself). Packed 7-bit over SMPP is a rare per-SMSC option and is not offered.
// An extension character (€, [, …) is the escape septet 0x1B followed by its code.
import { GSM7_BASIC, GSM7_ESCAPE, GSM7_EXTENSION } from './gsm7.ts';

/** Septets one SMS carries without a user data header. */
export const SINGLE_PART_SEPTETS = 160;
/** Septets per part of a concatenated SMS: 160 minus the 6-octet UDH (7 septets' worth). */
export const CONCATENATED_PART_SEPTETS = 153;
/** The UDH's part counter is one octet. */
export const MAX_PARTS = 255;

const BASIC_SEPTET: ReadonlyMap<string, number> = new Map(
  GSM7_BASIC.flatMap((ch, septet) => (septet === GSM7_ESCAPE ? [] : [[ch, septet] as const])),
);
const EXTENSION_SEPTET: ReadonlyMap<string, number> = new Map(GSM7_EXTENSION);

/** One character's septets: one for the default alphabet, escape + code for the extension table. */
function charSeptets(ch: string): readonly number[] {
  const basic = BASIC_SEPTET.get(ch);
  if (basic !== undefined) return [basic];
  const extension = EXTENSION_SEPTET.get(ch);
  if (extension !== undefined) return [GSM7_ESCAPE, extension];
  throw new RangeError(`not a GSM 7-bit character: U+${ch.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`);
}

/** The text as unpacked septets, one per octet. Throws on a non-GSM character: pass `toGsm7` output. */
export function toSeptets(gsmText: string): Uint8Array {
  const septets: number[] = [];
  for (const ch of gsmText) septets.push(...charSeptets(ch));
  return Uint8Array.from(septets);
}

/**
 * The text's septets in SMS-sized chunks: one chunk up to 160 septets, otherwise
 * chunks of at most 153. An escape pair is never split: a chunk that has room for
 * only the escape ends one septet short instead.
 */
export function splitSeptets(gsmText: string): Uint8Array[] {
  const all = toSeptets(gsmText);
  if (all.length <= SINGLE_PART_SEPTETS) return [all];
  const chunks: Uint8Array[] = [];
  let current: number[] = [];
  for (const ch of gsmText) {
    const septets = charSeptets(ch);
    if (current.length + septets.length > CONCATENATED_PART_SEPTETS) {
      chunks.push(Uint8Array.from(current));
      current = [];
    }
    current.push(...septets);
  }
  chunks.push(Uint8Array.from(current));
  return chunks;
}

export interface SmsPart {
  /** The user data header, its length octet first; null for a single-part message. */
  readonly udh: Uint8Array | null;
  readonly septets: Uint8Array;
}

/**
 * Chunks as SMS parts. More than one gets the concatenation header
 * `05 00 03 <reference> <total> <sequence>` (IEI 0x00, 8-bit reference), which
 * tells the handset which parts belong together and in what order.
 */
export function toSmsParts(chunks: readonly Uint8Array[], reference: number): SmsPart[] {
  if (chunks.length > MAX_PARTS) throw new RangeError(`${chunks.length} parts: a concatenated SMS has at most ${MAX_PARTS}`);
  if (!Number.isInteger(reference) || reference < 0 || reference > 0xff) throw new RangeError(`reference ${reference} is not an octet`);
  if (chunks.length === 1) return [{ udh: null, septets: chunks[0] ?? new Uint8Array(0) }];
  return chunks.map((septets, index) => ({
    udh: Uint8Array.of(0x05, 0x00, 0x03, reference, chunks.length, index + 1),
    septets,
  }));
}
