// Types for the parts of `mailsplit` 5.x (CommonJS, no types of its own) that herald uses:
// split a MIME message into nodes, change the root's headers and the HTML parts' bodies,
// join it back. Written from node_modules/mailsplit/lib/*.js; import the default export.

declare module 'mailsplit' {
  import type { Transform } from 'node:stream';

  export class Headers {
    constructor(headers: Buffer | string);
    hasHeader(key: string): boolean;
    /** The raw lines of every header named `key` (`Key: value`, folded as written). */
    get(key: string): string[];
    /** The first header named `key`, decoded (RFC 2047) and trimmed; '' when absent. */
    getFirst(key: string): string;
    getList(): { key: string; line: string }[];
    add(key: string, value: string, index?: number): void;
    remove(key: string): void;
    update(key: string, value: string): void;
    build(lineEnd?: string): Buffer;
  }

  /** One MIME node as the splitter emits it (`type: 'node'`), with its parsed headers. */
  export interface MimeNode {
    readonly type: 'node';
    readonly root: boolean;
    readonly contentType: string | false;
    readonly charset: string | false;
    readonly encoding: string | false;
    readonly multipart: string | false;
    readonly headers: Headers;
    setCharset(charset: string): void;
    getDecoder(): Transform;
    getEncoder(encoding?: string): Transform;
  }

  export type SplitChunk = MimeNode | { readonly type: 'body' | 'data'; readonly value: Buffer };

  export class Splitter extends Transform {
    constructor(options?: { ignoreEmbedded?: boolean; maxHeadSize?: number });
  }
  export class Joiner extends Transform {}
  /** Hands each node `filter` selects to its 'node' listener as { node, decoder, encoder }. */
  export class Rewriter extends Transform {
    constructor(filter: (node: MimeNode) => boolean);
    on(event: 'node', listener: (pair: { node: MimeNode; decoder: Transform; encoder: Transform }) => void): this;
    on(event: string | symbol, listener: (...args: unknown[]) => void): this;
  }

  const mailsplit: { Splitter: typeof Splitter; Joiner: typeof Joiner; Rewriter: typeof Rewriter; Headers: typeof Headers };
  export default mailsplit;
}
