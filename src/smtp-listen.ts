import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { SMTPServer } from 'smtp-server';

/**
 * Binds an smtp-server (the inbound listener, SMTP submission) and answers its port. A port
 * already taken fails the start; after that, client-side trouble (a reset connection, a TLS
 * handshake the client gave up) is logged as `what`, never fatal. `reusePort`: several
 * processes of one machine share the port (SO_REUSEPORT; Linux spreads the connections).
 */
export async function listenSmtp(server: SMTPServer, port: number, host: string, log: Logger, what: string, reusePort = false): Promise<number> {
  server.on('error', (error: Error) => log.warn({ err: error }, what));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen({ port, host, ...(reusePort ? { reusePort: true } : {}) }, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  return (server.server.address() as AddressInfo).port;
}
