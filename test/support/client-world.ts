// What the client library tests (test/clients/) share: a real herald process on a
// SQLite file of its own, accounts opened through its admin API, and a proxy that
// loses answers on the way back.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHerald, type HeraldProcess } from './herald-process.ts';
import { ADMIN_TOKEN, openAccountByAdmin } from './multi-process.ts';

export { ADMIN_TOKEN };

export interface ClientHerald extends HeraldProcess {
  /** Ends the process and removes its database. */
  stop(): Promise<void>;
}

/** `serve --role all` (the API, the delivery worker and the webhook dispatcher) with the capture transports. */
export async function startClientHerald(): Promise<ClientHerald> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-clients-'));
  try {
    const herald = await startHerald('all', {
      HERALD_DATABASE_URL: `sqlite:${join(dir, 'herald.db')}`,
      HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
      // The webhook receiver is on loopback.
      HERALD_FETCH_ALLOW_PRIVATE: 'true',
    });
    return Object.assign(herald, {
      stop: async () => {
        await herald.kill('SIGTERM');
        rmSync(dir, { recursive: true, force: true });
      },
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

export interface ClientAccount {
  readonly id: string;
  readonly apiKey: string;
  /** An approved WhatsApp template `Hi {{1}}, your code is {{2}}`. */
  readonly templateId: string;
}

/**
 * An account with 100 messages, 10.00 of balance at 0.05 a WhatsApp message, the verified
 * sender domain example.com and a template; 1000 requests a second unless `rateLimitPerSecond` says.
 */
export async function openClientAccount(herald: Pick<HeraldProcess, 'url'>, rateLimitPerSecond = 1000): Promise<ClientAccount> {
  const account = await openAccountByAdmin(herald, { messagesLeft: 100, rateLimitPerSecond, balance: 10, whatsappPrice: 0.05 });
  const created = await fetch(`${herald.url}/admin/v1/accounts/${account.id}/whatsapp-templates`, {
    method: 'POST', headers: asAdmin, body: JSON.stringify({ name: 'otp_code', body: 'Hi {{1}}, your code is {{2}}' }),
  });
  if (created.status !== 201) throw new Error(`adding the template: ${created.status} ${await created.text()}`);
  return { ...account, templateId: ((await created.json()) as { templateId: string }).templateId };
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface LosingProxy {
  readonly url: string;
  /** The Idempotency-Key of each request that reached herald through the proxy, in order. */
  readonly keys: readonly (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A proxy to herald that passes the first `lose` requests on, lets herald answer, and
 * then closes the client's connection without the answer: a send whose answer was lost.
 */
export async function startLosingProxy(target: string, lose: number): Promise<LosingProxy> {
  const keys: (string | undefined)[] = [];
  let lost = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const key = request.headers['idempotency-key'];
      keys.push(Array.isArray(key) ? key[0] : key);
      const headers = Object.fromEntries(Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host' && entry[0] !== 'connection'));
      const answer = await fetch(`${target}${request.url ?? '/'}`, { method: request.method ?? 'GET', headers, ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }) });
      const body = Buffer.from(await answer.arrayBuffer());
      if (lost < lose) {
        lost++;
        request.socket.destroy();
        return;
      }
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
    });
  });
  const url = await listening(server);
  return { url, keys, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}
