import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

// An HTTP stand-in for the Graph API's media endpoints on loopback, answering as Meta
// does: `GET /v23.0/{media-id}` with the bearer token gives the media's metadata (a
// download URL, mime_type, hex sha256, file_size), `GET` of that URL with the token
// gives the bytes. Every request is recorded; answers can be made to fail.

export interface StoredMedia {
  readonly bytes: Buffer;
  readonly mimeType: string;
  /** Answered as file_size; default the bytes' length (null: left out). */
  readonly declaredSize?: number | null;
  /** Answered as sha256; default the bytes' hex digest. */
  readonly sha256?: string;
}

export interface GraphMediaStandIn {
  /** `http://127.0.0.1:<port>/v23.0`, the Graph API root. */
  readonly baseUrl: string;
  readonly requests: { readonly path: string; readonly authorization: string | undefined }[];
  /** Media Meta holds, by media id; an unknown id is answered 404 as Meta does. */
  readonly media: Map<string, StoredMedia>;
  /** The next metadata requests answer these statuses (503: Meta's passing trouble). */
  failNext(...statuses: number[]): void;
}

export async function startGraphMediaStandIn(t: TestContext, accessToken: string): Promise<GraphMediaStandIn> {
  const requests: { path: string; authorization: string | undefined }[] = [];
  const media = new Map<string, StoredMedia>();
  const failures: number[] = [];
  let origin = '';

  const server = createServer((request, response) => {
    const path = request.url ?? '';
    requests.push({ path, authorization: request.headers.authorization });
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${accessToken}`) return json(401, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } });
    const download = /^\/media\/([0-9]+)\?ext=1$/.exec(path);
    if (download) {
      const found = media.get(download[1] ?? '');
      if (!found) return json(404, { error: { message: 'not found', code: 100 } });
      response.writeHead(200, { 'content-type': found.mimeType, 'content-length': String(found.bytes.length) }).end(found.bytes);
      return;
    }
    const metadata = /^\/v23\.0\/([0-9]+)$/.exec(path);
    const found = metadata ? media.get(metadata[1] ?? '') : undefined;
    const failure = failures.shift();
    if (failure !== undefined) return json(failure, { error: { message: 'Service temporarily unavailable', code: 2 } });
    if (!metadata || !found) return json(404, { error: { message: 'Unsupported get request.', type: 'GraphMethodException', code: 100 } });
    const id = metadata[1];
    json(200, {
      messaging_product: 'whatsapp',
      url: `${origin}/media/${id}?ext=1`,
      mime_type: found.mimeType,
      sha256: found.sha256 ?? createHash('sha256').update(found.bytes).digest('hex'),
      ...(found.declaredSize === null ? {} : { file_size: found.declaredSize ?? found.bytes.length }),
      id,
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return { baseUrl: `${origin}/v23.0`, requests, media, failNext: (...statuses) => { failures.push(...statuses); } };
}
