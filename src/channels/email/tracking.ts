import { text } from 'node:stream/consumers';
import { RewritingStream } from 'parse5-html-rewriting-stream';
import { BoundedCache } from '../../cache/bounded-cache.ts';
import { isTrackableUrl, type TrackingTokens } from '../../domain/tracking-token.ts';

// Open and click tracking in an HTML body: the href of every <a> that holds an
// absolute http(s) link becomes `<publicUrl>/t/c/<token>` (the token carries the
// destination, signed), and a 1×1 image `<publicUrl>/t/o/<token>` goes before the
// first </body> (at the end when there is none). The HTML is tokenised by parse5's
// rewriting stream and only those attributes are replaced, by source offset, so
// everything else stays byte for byte as the sender wrote it.
//
// Left alone: mailto:, tel:, relative links and #anchors (nothing to follow on our
// side), links longer than MAX_TRACKED_URL_LENGTH, and links already on herald's own
// /u/ (unsubscribe) and /t/ paths.

export interface TrackingTarget {
  /** Base of the tracking URLs, without a trailing slash. */
  readonly publicUrl: string;
  readonly tokens: TrackingTokens;
  readonly accountId: string;
  readonly msgid: string;
  /** Signing time (epoch ms): the tokens' lifetimes start here. */
  readonly now: number;
}

export interface TrackingChoice {
  readonly opens: boolean;
  readonly clicks: boolean;
}

/** Where a document gets its tracking: the sender's HTML cut at each tracked href and at the pixel's place. */
interface Layout {
  /** Text between the tracked href attributes, one more than there are links. */
  readonly pieces: readonly string[];
  /** Each tracked href in document order: its destination and the attribute as written. */
  readonly links: readonly { readonly url: string; readonly attribute: string }[];
  /** The piece the pixel goes into, and where in it: before the first </body>, else at the very end. */
  readonly pixel: { readonly piece: number; readonly at: number };
}

/** A start tag's location: the tokenizer also gives each attribute's (parse5's LocationWithAttributes). */
type StartTagLocation = { readonly attrs?: Readonly<Record<string, { readonly startOffset: number; readonly endOffset: number }>> };

/** The link as a browser would follow it (surrounding whitespace dropped), when herald tracks it. */
function trackedHref(value: string, publicUrl: string): string | undefined {
  const href = value.trim();
  if (!isTrackableUrl(href)) return undefined;
  if (href.startsWith(`${publicUrl}/u/`) || href.startsWith(`${publicUrl}/t/`)) return undefined;
  return href;
}

async function layoutOf(html: string, publicUrl: string): Promise<Layout> {
  const cuts: { start: number; end: number; url: string }[] = [];
  let bodyEnd: number | undefined;
  const tokenizer = new RewritingStream();
  tokenizer.on('startTag', (tag) => {
    if (tag.tagName !== 'a') return;
    const href = tag.attrs.find((a) => a.name === 'href');
    const where = (tag.sourceCodeLocation as StartTagLocation | undefined)?.attrs?.['href'];
    const url = href === undefined ? undefined : trackedHref(href.value, publicUrl);
    if (url !== undefined && where !== undefined) cuts.push({ start: where.startOffset, end: where.endOffset, url });
  });
  tokenizer.on('endTag', (tag) => {
    if (tag.tagName === 'body' && bodyEnd === undefined) bodyEnd = tag.sourceCodeLocation?.startOffset;
  });
  // Listening to every other token too keeps the stream from copying the document to its output.
  for (const event of ['text', 'comment', 'doctype']) tokenizer.on(event, () => {});
  const drained = text(tokenizer);
  tokenizer.end(html);
  await drained;

  const pieces: string[] = [];
  let from = 0;
  let pixel: { piece: number; at: number } | undefined;
  for (const cut of cuts) {
    // A </body> lies between attributes, never inside one.
    if (pixel === undefined && bodyEnd !== undefined && bodyEnd < cut.start) pixel = { piece: pieces.length, at: bodyEnd - from };
    pieces.push(html.slice(from, cut.start));
    from = cut.end;
  }
  pieces.push(html.slice(from));
  pixel ??= { piece: pieces.length - 1, at: (bodyEnd ?? html.length) - from };
  return { pieces, links: cuts.map((c) => ({ url: c.url, attribute: html.slice(c.start, c.end) })), pixel };
}

// Every recipient of a send gets the same HTML: it is tokenised once, then only the
// tokens differ. A few documents are kept, for sends whose recipients interleave.
// An entry holds the document twice (its key and its pieces), up to two bytes a
// character: the bytes bound counts four per character of the key, so a few huge
// documents cannot hold hundreds of MB.
const LAYOUTS_KEPT = 16;
const LAYOUT_BYTES_KEPT = 32 * 1024 * 1024;
const layouts = new BoundedCache<string, Promise<Layout>>({ maxEntries: LAYOUTS_KEPT, maxBytes: LAYOUT_BYTES_KEPT, bytesOf: (_layout, key) => key.length * 4 });

function cachedLayout(html: string, publicUrl: string): Promise<Layout> {
  const key = `${publicUrl}\n${html}`;
  return layouts.obtain(key, () => {
    const layout = layoutOf(html, publicUrl);
    layout.catch(() => layouts.delete(key));
    return layout;
  });
}

const pixelTag = (src: string): string =>
  `<img src="${src}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`;

/** The HTML with the pixel and rewritten links `choice` asks for; unchanged when it asks for neither. */
export async function addTracking(html: string, choice: TrackingChoice, target: TrackingTarget): Promise<string> {
  if (!choice.opens && !choice.clicks) return html;
  const { publicUrl, tokens, accountId, msgid, now } = target;
  const layout = await cachedLayout(html, publicUrl);

  // One token per distinct destination; a link that appears twice shares it.
  const destinations = choice.clicks ? [...new Set(layout.links.map((l) => l.url))] : [];
  const signed = new Map(await Promise.all(destinations.map(async (url) => [url, await tokens.sign({ kind: 'click', accountId, msgid, url }, now)] as const)));
  const pixel = choice.opens ? pixelTag(`${publicUrl}/t/o/${await tokens.sign({ kind: 'open', accountId, msgid }, now)}`) : '';

  let out = '';
  for (const [i, piece] of layout.pieces.entries()) {
    out += i === layout.pixel.piece ? piece.slice(0, layout.pixel.at) + pixel + piece.slice(layout.pixel.at) : piece;
    const link = layout.links[i];
    if (link === undefined) continue;
    const token = signed.get(link.url);
    // With clicks off, the attribute goes back as the sender wrote it.
    out += token === undefined ? link.attribute : `href="${publicUrl}/t/c/${token}"`;
  }
  return out;
}
