// A JSON import's top-level array cut into its elements' texts, a chunk at a time,
// without building any value: only the characters of the element being read are kept,
// and only while the element is within its bounds. An element over MAX_ELEMENT_CHARS
// characters or MAX_ELEMENT_DEPTH levels is dropped as it goes on (its characters are
// counted and let go) and handed over as refused, so a 200 MB string or an array of
// millions of zeros costs one chunk of memory, never the element. Each element's text
// is then parsed on its own (JSON.parse over at most 64 KiB), by import-rows.ts.

/** Longest element of a JSON import, in characters (as a CSV record). */
export const MAX_ELEMENT_CHARS = 64 * 1024;
/** Deepest nesting inside an element: the row object, attributes, and their three levels leave room. */
export const MAX_ELEMENT_DEPTH = 8;

/** One element: its text, or why it was dropped unread. */
export type JsonElement = { readonly text: string } | { readonly refused: string };

/** The array's structure breaks (not an array, a stray character between elements, not closed). */
export class BrokenJsonArray extends Error {
  override name = 'BrokenJsonArray';
}

type Phase = 'start' | 'first' | 'next' | 'element' | 'after' | 'ended';

const isSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

export class JsonElementSplitter {
  #phase: Phase = 'start';
  #pieces: string[] = [];
  #length = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #refused: string | undefined;

  /** The elements that end in `chunk`, in order. */
  write(chunk: string): JsonElement[] {
    const out: JsonElement[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.#phase === 'element') {
        i = this.#scanElement(chunk, i, out);
        continue;
      }
      const code = chunk.charCodeAt(i);
      if (isSpace(code) || (code === 0xfeff && this.#phase === 'start')) {
        i += 1;
        continue;
      }
      const char = chunk[i];
      if (this.#phase === 'start') {
        if (char !== '[') throw new BrokenJsonArray('the body is not an array');
        this.#phase = 'first';
        i += 1;
      } else if (this.#phase === 'first' && char === ']') {
        this.#phase = 'ended';
        i += 1;
      } else if (this.#phase === 'first' || this.#phase === 'next') {
        if (char === ',' || char === ']') throw new BrokenJsonArray(`an element is missing before "${char}"`);
        this.#begin();
      } else if (this.#phase === 'ended') {
        throw new BrokenJsonArray('there is text after the end of the array');
      }
    }
    return out;
  }

  /** The body ended: throws unless the array was closed. */
  end(): void {
    if (this.#phase === 'start') throw new BrokenJsonArray('the body is empty');
    if (this.#phase !== 'ended') throw new BrokenJsonArray('the array is not closed');
  }

  #begin(): void {
    this.#phase = 'element';
    this.#pieces = [];
    this.#length = 0;
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    this.#refused = undefined;
  }

  /** Reads the element from `from`; answers where reading stopped (the chunk's end, or past the `,`/`]` that ended it). */
  #scanElement(chunk: string, from: number, out: JsonElement[]): number {
    let i = from;
    for (; i < chunk.length; i += 1) {
      if (this.#inString) {
        // Jump to the next quote or backslash: a long string costs a search, not a loop turn per character.
        if (this.#escaped) {
          this.#escaped = false;
          continue;
        }
        const quote = chunk.indexOf('"', i);
        const slash = chunk.indexOf('\\', i);
        const stop = quote < 0 ? slash : slash < 0 ? quote : Math.min(quote, slash);
        if (stop < 0) {
          i = chunk.length;
          break;
        }
        i = stop;
        if (chunk[i] === '\\') this.#escaped = true;
        else this.#inString = false;
        continue;
      }
      const char = chunk[i];
      if (char === '"') this.#inString = true;
      else if (char === '{' || char === '[') {
        this.#depth += 1;
        if (this.#depth > MAX_ELEMENT_DEPTH) this.#refuse(`the row nests deeper than ${MAX_ELEMENT_DEPTH} levels`);
      } else if (char === '}' || (char === ']' && this.#depth > 0)) {
        if (this.#depth === 0) throw new BrokenJsonArray(`an element has a "${char}" that closes nothing`);
        this.#depth -= 1;
      } else if (this.#depth === 0 && (char === ',' || char === ']')) {
        this.#keep(chunk.slice(from, i));
        out.push(this.#finish());
        this.#phase = char === ',' ? 'next' : 'ended';
        return i + 1;
      }
    }
    this.#keep(chunk.slice(from, i));
    return i;
  }

  #keep(piece: string): void {
    this.#length += piece.length;
    if (this.#refused === undefined && this.#length > MAX_ELEMENT_CHARS) this.#refuse(`the row is longer than ${MAX_ELEMENT_CHARS} characters`);
    if (this.#refused === undefined) this.#pieces.push(piece);
  }

  #refuse(reason: string): void {
    this.#refused ??= reason;
    this.#pieces = [];
  }

  #finish(): JsonElement {
    const element: JsonElement = this.#refused === undefined ? { text: this.#pieces.join('') } : { refused: this.#refused };
    this.#pieces = [];
    return element;
  }
}
