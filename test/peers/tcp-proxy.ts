import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

// A TCP relay on loopback in front of a real server (Redis, PostgreSQL …) that a test
// can make misbehave: `freeze()` stops passing bytes either way while keeping the
// connections open (a server that stopped answering, like a SIGSTOPped process; the
// bytes wait in the socket buffers and flow again on `thaw()`), `cut()` drops every
// connection and refuses new ones until `restore()`.

export interface TcpProxy {
  readonly port: number;
  freeze(): void;
  thaw(): void;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let frozen = false;
  let refusing = false;

  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const relay = (from: Socket, to: Socket): void => {
      from.on('data', (chunk: Buffer) => {
        if (!to.write(chunk)) from.pause();
      });
      to.on('drain', () => {
        if (!frozen) from.resume();
      });
    };
    relay(client, upstream);
    relay(upstream, client);
    if (frozen) {
      client.pause();
      upstream.pause();
    }
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    port: (server.address() as AddressInfo).port,
    freeze() {
      frozen = true;
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const { client, upstream } of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    cut() {
      refusing = true;
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
    },
    restore() {
      refusing = false;
    },
    async close() {
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
