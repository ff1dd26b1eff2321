import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, unknownSettingWarnings, type Config } from './config.ts';
import { listenOrExplain } from './startup-errors.ts';
import { isRole, ROLES, type Role } from './domain/process-role.ts';
import { startMetricsServer, type MetricsServer } from './metrics/server.ts';
import { prepareRoleService } from './service.ts';

// The composition root of a running server: config → service → listen → start; signals.
// Order matters: the SQLite serving lock is taken before anything else (a second
// process exits 78 here), every port is bound before any loop or background job starts
// (all of them, or none: the first that cannot be bound closes the others and exits 78),
// so /healthz answers while the loops start and a taken port never leaves a process
// delivering.

async function serve(config: Config, paused: boolean): Promise<void> {
  const service = await prepareRoleService(config, { servingLock: true, paused });
  const log = service.http.log;
  if (service.adminToken.createdToken !== undefined) printFirstStart(config, service.adminToken.createdToken);

  let metricsServer: MetricsServer | undefined;
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: no new requests, finishing in-flight work');
    await metricsServer?.close();
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  try {
    // The API port last: it is the one that takes traffic.
    const { metricsPort } = config;
    if (metricsPort !== undefined) {
      metricsServer = await listenOrExplain({ portVariable: 'HERALD_METRICS_PORT', hostVariable: 'HERALD_METRICS_HOST', port: metricsPort, host: config.metricsHost }, () =>
        startMetricsServer(service.metrics, { port: metricsPort, host: config.metricsHost }));
      log.info({ port: metricsServer.port, host: config.metricsHost }, 'metrics listening at /metrics');
    }
    await service.listenInbound();
    await listenOrExplain({ portVariable: 'HERALD_PORT', hostVariable: 'HERALD_HOST', port: config.port, host: config.host }, () =>
      service.http.listen({ port: config.port, host: config.host }));
  } catch (error) {
    stopping = true;
    await metricsServer?.close();
    await service.close();
    throw error;
  }
  await service.start();
  log.info({ role: config.role }, `herald ${config.role === 'all' ? 'serving the API and delivering' : config.role === 'api' ? 'serving the API' : 'delivering (health checks only on HTTP)'}`);
}

function printFirstStart(config: Config, token: string): void {
  // Printed once, on stdout and not through the logger, so it never lands in log storage.
  process.stdout.write(
    [
      '',
      '  herald: first start. An admin token was created; it is stored hashed and will not be shown again:',
      '',
      `    ${token}`,
      '',
      '  Create an account with it:',
      '',
      `    curl -s -X POST ${config.publicUrl}/admin/v1/accounts \\`,
      `      -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\`,
      `      -d '{"name":"acme","messagesLeft":1000}'`,
      '',
      '  or with the CLI: npm run herald -- accounts create --name acme --messages 1000 --domain example.com',
      '',
    ].join('\n') + '\n',
  );
}

const USAGE = `usage: node src/main.ts serve [--role ${ROLES.join('|')}] [--paused]\n`;

/**
 * `serve [--role r] [--paused]`; the role flag wins over HERALD_ROLE. --paused holds
 * delivery in the store before anything starts (app/delivery-hold.ts).
 */
function parseServeArgs(args: readonly string[]): { role: Role | undefined; paused: boolean } | undefined {
  const [command = 'serve', ...rest] = args;
  if (command !== 'serve') return undefined;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { role: { type: 'string' }, paused: { type: 'boolean' } }, strict: true, allowPositionals: false });
  } catch {
    return undefined;
  }
  const { role, paused } = parsed.values;
  if (role !== undefined && !isRole(role)) return undefined;
  return { role, paused: paused === true };
}

const args = parseServeArgs(process.argv.slice(2));
if (args === undefined) {
  process.stderr.write(USAGE);
  process.exit(2);
}
for (const warning of unknownSettingWarnings()) process.stderr.write(`herald: warning: ${warning}\n`);
try {
  const config = loadConfig();
  await serve(args.role === undefined ? config : { ...config, role: args.role }, args.paused);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`herald: configuration error: ${error.message}\n`);
    process.exit(78);
  }
  throw error;
}
