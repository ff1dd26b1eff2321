// GSM 03.38: the 7-bit alphabet an SMS travels in. The spec says unsupported
// characters are "removed automatically"; herald first transliterates what has a
// plain equivalent, so "canción" arrives as "cancion" rather than "cancin".

/**
 * The default alphabet, indexed by septet value (0x00–0x7F), so SMPP packing can
 * look a character's code up by position. 0x1B is the escape to the extension
 * table, not a character: it is never kept from input text.
 */
export const GSM7_BASIC = [
  '@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å',
  'Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', '\x1b', 'Æ', 'æ', 'ß', 'É',
  ' ', '!', '"', '#', '¤', '%', '&', "'", '(', ')', '*', '+', ',', '-', '.', '/',
  '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?',
  '¡', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
  'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'Ä', 'Ö', 'Ñ', 'Ü', '§',
  '¿', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
  'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ä', 'ö', 'ñ', 'ü', 'à',
] as const;

/** The escape septet that precedes every extension-table character on the wire. */
export const GSM7_ESCAPE = 0x1b;

/** The extension table: each character with the septet sent after the escape. */
export const GSM7_EXTENSION = [
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['€', 0x65],
] as const;

const BASIC_CHARS: ReadonlySet<string> = new Set(GSM7_BASIC.filter((_, septet) => septet !== GSM7_ESCAPE));
const EXTENSION_CHARS: ReadonlySet<string> = new Set(GSM7_EXTENSION.map(([ch]) => ch));

/**
 * Characters outside GSM with a plain equivalent that NFD decomposition does not
 * give (punctuation, spaces, letters without a combining mark). Checked before
 * NFD so ç becomes Ç (GSM has only the capital) instead of c.
 */
const TRANSLITERATIONS: Readonly<Record<string, string>> = {
  'ç': 'Ç',
  // Quotes and apostrophes
  '“': '"', '”': '"', '„': '"', '‟': '"', '«': '"', '»': '"', '″': '"',
  '‘': "'", '’': "'", '‚': "'", '‛': "'", '‹': "'", '›': "'", '′': "'", '`': "'", '´': "'",
  // Dashes and the minus sign
  '‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '―': '-', '−': '-',
  '…': '...',
  // Spaces: a tab too, since dropping it would glue words together
  '\t': ' ', '\u00a0': ' ', '\u1680': ' ', '\u2000': ' ', '\u2001': ' ', '\u2002': ' ',
  '\u2003': ' ', '\u2004': ' ', '\u2005': ' ', '\u2006': ' ', '\u2007': ' ', '\u2008': ' ',
  '\u2009': ' ', '\u200a': ' ', '\u202f': ' ', '\u205f': ' ', '\u3000': ' ',
  '\u2028': '\n', '\u2029': '\n',
  // Latin letters that do not decompose
  'Œ': 'OE', 'œ': 'oe', 'Ł': 'L', 'ł': 'l', 'Đ': 'D', 'đ': 'd', 'Ð': 'D', 'ð': 'd',
  'Þ': 'TH', 'þ': 'th', 'ı': 'i', 'Ħ': 'H', 'ħ': 'h',
  // Greek capitals that GSM leaves out because they look like Latin ones
  'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M',
  'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
};

const COMBINING_MARKS = /\p{M}/gu;
const GREEK = /^[\u0370-\u03ff]$/u;

function isGsmChar(ch: string): boolean {
  return BASIC_CHARS.has(ch) || EXTENSION_CHARS.has(ch);
}

/** One code point to its GSM form: itself, a transliteration, or '' when nothing fits. */
function transliterate(ch: string): string {
  if (isGsmChar(ch)) return ch;
  const explicit = TRANSLITERATIONS[ch];
  if (explicit !== undefined) return explicit;
  const stripped = ch.normalize('NFD').replace(COMBINING_MARKS, '');
  // Each part has no marks left, so the recursion ends on the next level.
  if (stripped !== ch) return Array.from(stripped, transliterate).join('');
  // Greek phones send lowercase as capitals, the only Greek GSM can carry.
  if (GREEK.test(ch)) {
    const upper = ch.toUpperCase();
    if (upper !== ch) return Array.from(upper, transliterate).join('');
  }
  return '';
}

/**
 * The text as GSM 7-bit can carry it: GSM characters kept, others transliterated
 * where a plain equivalent exists, the rest (emoji, CJK, control characters other
 * than \n, \r and form feed) removed. Idempotent.
 */
export function toGsm7(text: string): string {
  return toGsm7Within(text, Number.POSITIVE_INFINITY) ?? '';
}

/**
 * toGsm7 in one pass that stops as soon as the result is longer than `maxLength`
 * characters (null then). Every GSM character is one UTF-16 code unit, so the result's
 * length is its count of characters.
 */
export function toGsm7Within(text: string, maxLength: number): string | null {
  let out = '';
  // NFC first so a letter typed as base + combining mark (e + ◌́) stays é, which GSM has.
  for (const ch of text.normalize('NFC')) {
    out += BASIC_CHARS.has(ch) || EXTENSION_CHARS.has(ch) ? ch : transliterate(ch);
    if (out.length > maxLength) return null;
  }
  return out;
}

/** True when every code point is in the default alphabet or the extension table. */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (!isGsmChar(ch)) return false;
  return true;
}

/**
 * Septets the text takes on the wire: extension characters cost two (escape +
 * code). Throws on a non-GSM character: callers pass `toGsm7` output.
 */
export function septetLength(gsmText: string): number {
  let septets = 0;
  for (const ch of gsmText) {
    if (BASIC_CHARS.has(ch)) septets += 1;
    else if (EXTENSION_CHARS.has(ch)) septets += 2;
    else throw new RangeError(`not a GSM 7-bit character: U+${ch.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`);
  }
  return septets;
}
