import { ConfigError, loadConfig, type Config } from './config.ts';
import { createService } from './service.ts';

// The composition root of a running server: config → service → listen; signals.

async function serve(config: Config): Promise<void> {
  const service = await createService(config);
  const log = service.http.log;
  if (service.adminToken.createdToken !== undefined) printFirstStart(config, service.adminToken.createdToken);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: no new requests, finishing in-flight work');
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await service.http.listen({ port: config.port, host: config.host });
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

const [command = 'serve'] = process.argv.slice(2);
if (command !== 'serve') {
  process.stderr.write(`usage: node src/main.ts serve\n`);
  process.exit(2);
}
try {
  await serve(loadConfig());
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`herald: configuration error: ${error.message}\n`);
    process.exit(78);
  }
  throw error;
}
