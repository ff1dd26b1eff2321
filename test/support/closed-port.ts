import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/** A loopback port that was just free and is closed now: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
