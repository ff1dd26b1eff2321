// Every peer here is an http(s) server on 127.0.0.1. Tests that name other addresses (10.0.0.5,
// 169.254.169.254, …) expect a refusal before any connection is attempted.

import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { guardedFetch, guardedFetchWithPolicy, isPublicAddress } from '../../src/channels/guarded-fetch.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const BASE = { allowPrivate: true, maxBytes: 1024, timeoutMs: 5000 } as const;

/** Starts a loopback HTTP server closed after the test; returns its port and received requests. */
async function serve(t: TestContext, handler: Handler): Promise<{ port: number; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    requests.push(request);
    handler(request, response);
  });
  await listen(t, server);
  return { port: (server.address() as AddressInfo).port, requests };
}

async function listen(t: TestContext, server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
}

/** A lookup answering from a fixed table and recording every host name asked for. */
function tableLookup(table: Record<string, string[]>): {
  lookup: (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;
  asked: string[];
} {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<{ address: string; family: 4 | 6 }[]> => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
}

/** Allows the loopback test peer and, beyond it, only what isPublicAddress allows. */
function loopbackOrPublic(address: string): boolean {
  return address === '127.0.0.1' || isPublicAddress(address);
}

describe('guardedFetch', () => {
  test('fetches a body with its content type and final URL when private addresses are allowed', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end('%PDF-1.7');
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/files/a.pdf?x=1`, BASE);

    assert.deepEqual(outcome, {
      ok: true,
      body: Buffer.from('%PDF-1.7'),
      contentType: 'application/pdf',
      finalUrl: `http://127.0.0.1:${port}/files/a.pdf?x=1`,
    });
  });

  test('refuses 127.0.0.1 without allowPrivate and never connects', async (t) => {
    const { port, requests } = await serve(t, (_request, response) => response.end('secret'));

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, { ...BASE, allowPrivate: false });

    assert.deepEqual(outcome, {
      ok: false,
      reason: 'refused to fetch 127.0.0.1: 127.0.0.1 is a private or reserved address',
      permanent: true,
    });
    assert.equal(requests.length, 0);
  });

  for (const address of ['10.0.0.5', '169.254.169.254', '::1', '::ffff:127.0.0.1']) {
    test(`refuses a host name that resolves to ${address}`, async () => {
      const { lookup } = tableLookup({ 'files.test': [address] });

      const outcome = await guardedFetch('http://files.test/a.pdf', { ...BASE, allowPrivate: false, lookup });

      assert.deepEqual(outcome, {
        ok: false,
        reason: `refused to fetch files.test: ${address} is a private or reserved address`,
        permanent: true,
      });
    });
  }

  test('refuses a host name when any one of its addresses is private', async (t) => {
    const { port, requests } = await serve(t, (_request, response) => response.end('secret'));
    const { lookup } = tableLookup({ 'files.test': ['127.0.0.1', '10.0.0.5'] });

    const outcome = await guardedFetchWithPolicy(`http://files.test:${port}/`, { ...BASE, lookup }, loopbackOrPublic);

    assert.deepEqual(outcome, {
      ok: false,
      reason: 'refused to fetch files.test: 10.0.0.5 is a private or reserved address',
      permanent: true,
    });
    assert.equal(requests.length, 0);
  });

  test('connects to the checked address with the original host name in the Host header', async (t) => {
    const { port, requests } = await serve(t, (_request, response) => response.end('ok'));
    const { lookup, asked } = tableLookup({ 'files.test': ['127.0.0.1'] });

    const outcome = await guardedFetch(`http://files.test:${port}/a.pdf`, { ...BASE, lookup });

    assert.equal(outcome.ok, true);
    assert.equal(requests[0]?.headers.host, `files.test:${port}`);
    // One lookup: the socket used the checked answer instead of resolving again.
    assert.deepEqual(asked, ['files.test']);
  });

  test('sends the original host name as the TLS server name', async (t) => {
    // No certificate needed: the server records the SNI name, then fails the handshake.
    const serverNames: string[] = [];
    const server = createTlsServer({
      SNICallback: (serverName, callback) => {
        serverNames.push(serverName);
        callback(new Error('no certificate in this test'), undefined);
      },
    });
    server.on('tlsClientError', () => {});
    await listen(t, server);
    const { port } = server.address() as AddressInfo;
    const { lookup } = tableLookup({ 'files.test': ['127.0.0.1'] });

    const outcome = await guardedFetch(`https://files.test:${port}/a.pdf`, { ...BASE, lookup });

    assert.equal(outcome.ok, false);
    assert.deepEqual(serverNames, ['files.test']);
  });

  test('follows a relative redirect and reports the final URL', async (t) => {
    const { port } = await serve(t, (request, response) => {
      if (request.url === '/old') {
        response.writeHead(302, { location: '/new' });
        response.end();
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('moved here');
      }
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/old`, BASE);

    assert.deepEqual(outcome, {
      ok: true,
      body: Buffer.from('moved here'),
      contentType: 'text/plain',
      finalUrl: `http://127.0.0.1:${port}/new`,
    });
  });

  test('resolves and checks the new host on every redirect', async (t) => {
    const { port, requests } = await serve(t, (request, response) => {
      if (request.headers.host === `a.test:${port}`) {
        response.writeHead(301, { location: `http://b.test:${port}/file` });
        response.end();
      } else {
        response.end('from b');
      }
    });
    const { lookup, asked } = tableLookup({ 'a.test': ['127.0.0.1'], 'b.test': ['127.0.0.1'] });

    const outcome = await guardedFetchWithPolicy(`http://a.test:${port}/`, { ...BASE, lookup }, loopbackOrPublic);

    assert.equal(outcome.ok && outcome.body.toString(), 'from b');
    assert.deepEqual(asked, ['a.test', 'b.test']);
    assert.deepEqual(
      requests.map((request) => request.headers.host),
      [`a.test:${port}`, `b.test:${port}`],
    );
  });

  test('refuses a redirect to a host name that resolves to a private address', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(307, { location: 'http://internal.test/admin' });
      response.end();
    });
    const { lookup } = tableLookup({ 'a.test': ['127.0.0.1'], 'internal.test': ['10.0.0.5'] });

    const outcome = await guardedFetchWithPolicy(`http://a.test:${port}/`, { ...BASE, lookup }, loopbackOrPublic);

    assert.deepEqual(outcome, {
      ok: false,
      reason: 'refused to fetch internal.test: 10.0.0.5 is a private or reserved address',
      permanent: true,
    });
  });

  test('refuses a redirect to the cloud metadata address', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
    });
    const { lookup } = tableLookup({ 'a.test': ['127.0.0.1'] });

    const outcome = await guardedFetchWithPolicy(`http://a.test:${port}/`, { ...BASE, lookup }, loopbackOrPublic);

    assert.deepEqual(outcome, {
      ok: false,
      reason: 'refused to fetch 169.254.169.254: 169.254.169.254 is a private or reserved address',
      permanent: true,
    });
  });

  test('gives up after maxRedirects redirects', async (t) => {
    const { port, requests } = await serve(t, (_request, response) => {
      response.writeHead(302, { location: '/again' });
      response.end();
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, { ...BASE, maxRedirects: 2 });

    assert.deepEqual(outcome, { ok: false, reason: 'too many redirects', permanent: true });
    assert.equal(requests.length, 3);
  });

  test('fails permanently on a redirect without a Location header', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(301);
      response.end();
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, BASE);

    assert.deepEqual(outcome, {
      ok: false,
      reason: `HTTP 301 from http://127.0.0.1:${port}/ without a Location header`,
      permanent: true,
    });
  });

  test('refuses a body whose Content-Length exceeds maxBytes before reading it', async (t) => {
    // Headers only, body never sent: the refusal must come from the header alone.
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(200, { 'content-length': '2000' });
      response.flushHeaders();
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, BASE);

    assert.deepEqual(outcome, { ok: false, reason: 'attachment larger than 1024 bytes', permanent: true });
  });

  test('stops reading a chunked body as soon as it exceeds maxBytes', async (t) => {
    // The response never ends, so only an early stop can produce the size failure.
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(200);
      response.write(Buffer.alloc(600));
      response.write(Buffer.alloc(600));
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, BASE);

    assert.deepEqual(outcome, { ok: false, reason: 'attachment larger than 1024 bytes', permanent: true });
  });

  test('accepts a chunked body of exactly maxBytes', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(200);
      response.write(Buffer.alloc(1000, 1));
      response.end(Buffer.alloc(24, 2));
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, BASE);

    assert.equal(outcome.ok && outcome.body.length, 1024);
  });

  test('fails permanently on 404', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(404);
      response.end('not here');
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/missing.pdf`, BASE);

    assert.deepEqual(outcome, {
      ok: false,
      reason: `HTTP 404 from http://127.0.0.1:${port}/missing.pdf`,
      permanent: true,
    });
  });

  test('fails transiently on 503', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(503);
      response.end();
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/a.pdf`, BASE);

    assert.deepEqual(outcome, { ok: false, reason: `HTTP 503 from http://127.0.0.1:${port}/a.pdf`, permanent: false });
  });

  test('fails transiently on 429', async (t) => {
    const { port } = await serve(t, (_request, response) => {
      response.writeHead(429);
      response.end();
    });

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/a.pdf`, BASE);

    assert.deepEqual(outcome, { ok: false, reason: `HTTP 429 from http://127.0.0.1:${port}/a.pdf`, permanent: false });
  });

  test('times out transiently when the server never answers', async (t) => {
    const { port } = await serve(t, () => {});

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, { ...BASE, timeoutMs: 100 });

    assert.deepEqual(outcome, { ok: false, reason: 'timed out after 100 ms', permanent: false });
  });

  test('fails transiently when the caller aborts', async (t) => {
    const { port } = await serve(t, () => {});
    const controller = new AbortController();
    const pending = guardedFetch(`http://127.0.0.1:${port}/`, { ...BASE, signal: controller.signal });
    controller.abort();

    assert.deepEqual(await pending, { ok: false, reason: 'aborted', permanent: false });
  });

  test('fails transiently when the connection is refused', async (t) => {
    // A port that was just free: listen on it, then close before fetching.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));

    const outcome = await guardedFetch(`http://127.0.0.1:${port}/`, BASE);

    assert.deepEqual(outcome, {
      ok: false,
      reason: `connection to 127.0.0.1:${port} failed: ECONNREFUSED`,
      permanent: false,
    });
  });

  test('fails permanently when the host name does not exist', async () => {
    const { lookup } = tableLookup({});

    const outcome = await guardedFetch('http://nowhere.test/a.pdf', { ...BASE, lookup });

    assert.deepEqual(outcome, { ok: false, reason: 'cannot resolve nowhere.test: ENOTFOUND', permanent: true });
  });

  test('fails transiently when the resolver is unavailable', async () => {
    const lookup = async (): Promise<never> => {
      throw Object.assign(new Error('try again'), { code: 'EAI_AGAIN' });
    };

    const outcome = await guardedFetch('http://files.test/a.pdf', { ...BASE, lookup });

    assert.deepEqual(outcome, { ok: false, reason: 'cannot resolve files.test: EAI_AGAIN', permanent: false });
  });

  test('refuses a URL scheme other than http and https', async () => {
    const outcome = await guardedFetch('ftp://files.example.com/a.pdf', BASE);

    assert.deepEqual(outcome, { ok: false, reason: 'unsupported URL scheme "ftp"', permanent: true });
  });

  test('refuses a URL with credentials', async () => {
    const outcome = await guardedFetch('http://user:pass@files.example.com/a.pdf', BASE);

    assert.deepEqual(outcome, { ok: false, reason: 'refused to fetch a URL with credentials', permanent: true });
  });

  test('refuses text that is not a URL', async () => {
    const outcome = await guardedFetch('not a url', BASE);

    assert.deepEqual(outcome, { ok: false, reason: 'invalid URL', permanent: true });
  });
});

describe('isPublicAddress', () => {
  const table: [string, boolean][] = [
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['10.0.0.5', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['192.0.2.1', false],
    ['240.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.5', false],
    ['::7f00:1', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
    ['2002:7f00:1::', false],
    ['2001:0:4136:e378::1', false],
    ['64:ff9b::a00:5', false],
    ['127.1', false],
    ['0x7f.0.0.1', false],
    ['localhost', false],
    ['', false],
  ];

  test('ranks only global unicast addresses as public', () => {
    assert.deepEqual(
      table.map(([address]) => [address, isPublicAddress(address)]),
      table,
    );
  });
});
