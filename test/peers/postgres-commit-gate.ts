import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

// A TCP relay on loopback in front of PostgreSQL that reads the server's side of the wire
// protocol (type byte, 32-bit length, payload) and, once armed, holds back the answer to
// the next COMMIT on any connection: the transaction is committed in the server, and the
// client does not know it yet. A test kills the client in that window. Plain TCP only:
// the client must not ask for SSL (the SSLRequest's one-byte reply has no frame).

export interface CommitGate {
  readonly port: number;
  /** Resolves when a COMMIT's completion has been held back (from now on, the next one). */
  arm(): Promise<void>;
  close(): Promise<void>;
}

const HEADER = 5;
const COMMIT_COMPLETE = Buffer.from('COMMIT\0');

export async function startCommitGate(target: { host: string; port: number }): Promise<CommitGate> {
  const sockets = new Set<Socket>();
  let armed: (() => void) | undefined;

  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    let holding = false;
    upstream.on('data', (chunk: Buffer) => {
      if (holding) return;
      pending = Buffer.concat([pending, chunk]);
      let forward = 0;
      while (pending.length - forward >= HEADER) {
        const size = 1 + pending.readUInt32BE(forward + 1);
        if (pending.length - forward < size) break;
        const isCommit = pending[forward] === 0x43 /* C: CommandComplete */
          && pending.subarray(forward + HEADER, forward + size).equals(COMMIT_COMPLETE);
        if (isCommit && armed !== undefined) {
          holding = true;
          client.write(pending.subarray(0, forward));
          const release = armed;
          armed = undefined;
          release();
          return;
        }
        forward += size;
      }
      client.write(pending.subarray(0, forward));
      pending = pending.subarray(forward);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    port: (server.address() as AddressInfo).port,
    arm: () => new Promise<void>((resolve) => { armed = resolve; }),
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
