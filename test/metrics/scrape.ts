// Scraping a service's metrics over HTTP, as Prometheus does, and reading samples.
import { startMetricsServer } from '../../src/metrics/server.ts';
import type { Metrics } from '../../src/metrics/registry.ts';

/** Scrapes the metrics through a listener on a free loopback port, closed after. */
export async function scrape(metrics: Metrics): Promise<{ status: number; contentType: string | null; body: string }> {
  const server = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1' });
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
  } finally {
    await server.close();
  }
}

/** The value of one sample, named with its labels exactly as exposed (`name{a="b"}`); undefined when absent. */
export function sample(body: string, series: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Every metric family the text declares (`# TYPE name kind`), in order. */
export function families(body: string): string[] {
  return body.split('\n').filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2] ?? '');
}
