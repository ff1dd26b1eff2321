import { v7 as uuidv7 } from 'uuid';
import type { KeyDeps } from '../app/api-keys.ts';
import { loadSigningSecret } from '../app/signing-key.ts';
import type { Config } from '../config.ts';
import { openStore } from '../store/dialect.ts';
import { migrateToLatest } from '../store/migrate.ts';

// The CLI's composition root: the store and the use cases' dependencies, without
// HTTP or the outbox worker. Not createService(): that would also prepare the admin
// token, and on an installation without HERALD_ADMIN_TOKEN a CLI run would create
// and swallow the token the server's first start is meant to print.
// (The same few lines as in service.ts; they belong in a store-only part of it.)

export interface CliDeps {
  readonly app: KeyDeps;
  close(): Promise<void>;
}

export async function openAppDeps(config: Config): Promise<CliDeps> {
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store.db);
    const signingSecret = await loadSigningSecret(store.db);
    const app: KeyDeps = {
      db: store.db,
      clock: Date.now,
      newId: uuidv7,
      signingSecret,
      publicUrl: config.publicUrl,
      // The CLI enqueues no deliveries; a running server's worker polls anyway.
      wakeOutbox: () => {},
    };
    return { app, close: () => store.db.destroy() };
  } catch (error) {
    await store.db.destroy();
    throw error;
  }
}
