import { X509Certificate } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { KeyDeps } from '../app/api-keys.ts';
import { StoreOutage } from '../app/store-outage.ts';
import type { Config } from '../config.ts';
import type { SubmissionEndpoint } from '../domain/submission-endpoint.ts';
import { submissionEndpointOf } from '../app/submission-endpoint.ts';
import { startSubmissionServer, type SubmissionRateCounter, type SubmissionServer } from './submission-server.ts';

// The submission ports as configured (HERALD_SUBMISSION_*): STARTTLS on one, implicit TLS
// on the other, one certificate for both, read again when its files change or on SIGHUP
// so a renewed certificate needs no restart.

export interface RunningSubmission {
  readonly endpoint: SubmissionEndpoint;
  close(): Promise<void>;
}

type Tls = { readonly key: Buffer; readonly cert: Buffer };

/** The submission servers this configuration asks for, bound; undefined when both ports are off. */
export async function startConfiguredSubmission(
  config: Config, deps: { readonly keys: KeyDeps; readonly rateCounter: SubmissionRateCounter; readonly logger: Logger },
): Promise<RunningSubmission | undefined> {
  if (config.submissionPort === undefined && config.submissionsPort === undefined) return undefined;
  const log = deps.logger.child({ component: 'smtp-submission' });
  const { submissionTlsKey: keyPath, submissionTlsCert: certPath } = config;
  const readTls = async (): Promise<Tls | undefined> => {
    if (keyPath === undefined || certPath === undefined) return undefined;
    const tls = { key: await readFile(keyPath), cert: await readFile(certPath) };
    deps.keys.metrics.tlsCertificateLoaded('smtp-submission', Date.parse(new X509Certificate(tls.cert).validTo));
    return tls;
  };
  const tls = await readTls();
  // The name in the greeting is the one applications are told to connect to (and the certificate's).
  const name = submissionEndpointOf(config)?.host ?? 'localhost';
  const serverDeps = { ...deps, outage: new StoreOutage(deps.keys.metrics, deps.keys.clock) };
  const common = { host: config.submissionHost, name, tls, maxBytes: config.bodyLimitBytes, maxConnectionsPerAddress: config.submissionMaxConnectionsPerAddress };
  const servers: SubmissionServer[] = [];
  let starttls: SubmissionServer | undefined;
  let implicit: SubmissionServer | undefined;
  try {
    if (config.submissionPort !== undefined) {
      starttls = await startSubmissionServer({ ...common, port: config.submissionPort, secure: false }, serverDeps);
      servers.push(starttls);
    }
    if (config.submissionsPort !== undefined) {
      implicit = await startSubmissionServer({ ...common, port: config.submissionsPort, secure: true }, serverDeps);
      servers.push(implicit);
    }
  } catch (error) {
    for (const server of servers) await server.close();
    throw error;
  }
  const endpoint = submissionEndpointOf(config, {
    ...(starttls === undefined ? {} : { starttlsPort: starttls.port }), ...(implicit === undefined ? {} : { implicitTlsPort: implicit.port }),
  });
  if (endpoint === undefined) throw new Error('a submission port is configured, so the endpoint exists');
  log.info({ ...endpoint, auth: tls === undefined ? 'loopback clients only (no certificate)' : 'after TLS' }, 'SMTP submission listening');
  if (tls === undefined) log.warn('SMTP submission has no certificate (HERALD_SUBMISSION_TLS_KEY, HERALD_SUBMISSION_TLS_CERT): AUTH is offered to loopback clients only');

  // A renewed certificate: its files change (a renewal tool writes or replaces them) or the operator sends SIGHUP.
  const reload = (why: string): void => {
    readTls().then((renewed) => {
      if (renewed === undefined) return;
      for (const server of servers) server.reloadTls(renewed);
      log.info({ why }, 'SMTP submission certificate reloaded');
    }, (error: unknown) => log.warn({ err: error, why }, 'SMTP submission certificate not reloaded; the previous one stays'));
  };
  const watchers: FSWatcher[] = [];
  if (tls !== undefined && keyPath !== undefined && certPath !== undefined) {
    for (const path of [keyPath, certPath]) {
      try {
        watchers.push(watch(path, { persistent: false }, () => reload(`${path} changed`)));
      } catch (error) {
        log.warn({ err: error, path }, 'cannot watch the certificate file; SIGHUP still reloads it');
      }
    }
  }
  const onHangup = (): void => reload('SIGHUP');
  if (tls !== undefined) process.on('SIGHUP', onHangup);
  return {
    endpoint,
    async close() {
      process.off('SIGHUP', onHangup);
      for (const watcher of watchers) watcher.close();
      for (const server of servers) await server.close();
    },
  };
}
