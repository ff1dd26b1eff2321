import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './registry.ts';

// The metrics listen on a port of their own (HERALD_METRICS_PORT, on 127.0.0.1 unless
// HERALD_METRICS_HOST says otherwise), never on the API's: queue depths and error
// counts are the operator's, and a separate port is one a firewall or a
// Kubernetes NetworkPolicy can close to everyone but the scraper, with no token to leak.

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `GET /metrics` (the Prometheus text format); every other path is 404. */
export async function startMetricsServer(metrics: Metrics, options: { readonly port: number; readonly host: string }): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.scrape().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`could not collect metrics: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  // A scraper holds its connection open between scrapes; closing must not wait for it.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
