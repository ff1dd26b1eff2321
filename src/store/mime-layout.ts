import { createHash } from 'node:crypto';

// How a stored message (a capture, a certified .eml) is kept: as a layout, literal
// text and references to pieces its send keeps once. The copies of one email differ
// only in a few headers (Message-ID, List-Unsubscribe, DKIM-Signature), the boundaries
// and the tracked links; the To and Cc headers, the untracked bodies and the
// attachments are the same in every copy, and a To header grows with the recipients —
// stored whole in each copy, an email to 10,000 recipients took 10,000 × 195 KB.
//
// The cut knows nothing of MIME beyond lines: header fields (with their folded lines)
// and the runs of lines between lines that start with "--" (where boundaries are).
// Whatever the text, the pieces put end to end are the text, so a message that fools
// the cut is stored in smaller pieces, never changed.

/** A stored message: literal text and references, by SHA-256, to the pieces of its send. */
export type Layout = readonly (string | { readonly piece: string })[];

/** A piece this long or longer is kept once per send; shorter ones (a DKIM-Signature, most header fields) stay in the copy. */
export const SHARED_PIECE_MIN_CHARS = 1024;

export interface LaidOut {
  readonly layout: Layout;
  /** The shared pieces by their SHA-256 (hex). */
  readonly pieces: ReadonlyMap<string, string>;
}

/** The SHA-256 (hex) under which a piece is kept. */
export function pieceHash(piece: string): string {
  return createHash('sha256').update(piece).digest('hex');
}

/** The text as a layout, or undefined when no piece is long enough to share (the text is then kept whole). */
export function layOut(text: string): LaidOut | undefined {
  const layout: (string | { piece: string })[] = [];
  const pieces = new Map<string, string>();
  let literal = '';
  for (const [start, end] of cuts(text)) {
    if (end - start < SHARED_PIECE_MIN_CHARS) {
      literal += text.slice(start, end);
      continue;
    }
    if (literal !== '') layout.push(literal);
    literal = '';
    const piece = text.slice(start, end);
    const hash = pieceHash(piece);
    pieces.set(hash, piece);
    layout.push({ piece: hash });
  }
  if (pieces.size === 0) return undefined;
  if (literal !== '') layout.push(literal);
  return { layout, pieces };
}

/** The text of a layout; throws when a piece it names is missing (the store lost data). */
export function assemble(layout: Layout, pieces: ReadonlyMap<string, string>): string {
  return layout.map((item) => {
    if (typeof item === 'string') return item;
    const piece = pieces.get(item.piece);
    if (piece === undefined) throw new Error(`the stored piece ${item.piece} of a message is missing`);
    return piece;
  }).join('');
}

/** The hashes of the pieces a layout names, each once. */
export function piecesNamed(layout: Layout): string[] {
  return [...new Set(layout.flatMap((item) => (typeof item === 'string' ? [] : [item.piece])))];
}

/** Parses a stored layout (JSON written by `layOut`'s caller). */
export function parseLayout(json: string): Layout {
  const parsed: unknown = JSON.parse(json);
  const valid = Array.isArray(parsed) && parsed.every((item) =>
    typeof item === 'string' || (typeof item === 'object' && item !== null && typeof (item as { piece?: unknown }).piece === 'string'));
  if (!valid) throw new Error('a stored message layout does not parse');
  return parsed as Layout;
}

/**
 * [start, end) of each piece, in order, covering the text: a header field with its
 * folded lines, a blank line, a line starting with "--", or the run of body lines up
 * to the next such line. After a "--" line (a boundary) come a part's header fields;
 * after a closing one ("--…--") more body. Linear in the text.
 */
function* cuts(text: string): Generator<[number, number]> {
  let inHeader = true;
  let pieceStart = 0;
  let lineStart = 0;
  while (lineStart < text.length) {
    const lf = text.indexOf('\n', lineStart);
    const lineEnd = lf === -1 ? text.length : lf + 1;
    const first = text.charCodeAt(lineStart);
    const blank = lineEnd - lineStart <= 2 && (first === 13 || first === 10);
    if (inHeader) {
      const folded = first === 32 || first === 9;
      if (!folded && lineStart > pieceStart) yield [pieceStart, lineStart];
      if (!folded) pieceStart = lineStart;
      if (blank) {
        yield [lineStart, lineEnd];
        pieceStart = lineEnd;
        inHeader = false;
      }
    } else if (first === 45 && text.charCodeAt(lineStart + 1) === 45) {
      if (lineStart > pieceStart) yield [pieceStart, lineStart];
      yield [lineStart, lineEnd];
      pieceStart = lineEnd;
      inHeader = !/--\r?\n?$/.test(text.slice(lineStart + 2, lineEnd));
    }
    lineStart = lineEnd;
  }
  if (text.length > pieceStart) yield [pieceStart, text.length];
}
