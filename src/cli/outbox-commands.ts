import { resolve } from 'node:path';
import { holdDelivery, readDeliveryHold, releaseDelivery, type DeliveryHold } from '../app/delivery-hold.ts';
import { backUpStore } from '../app/store-backup.ts';
import { loadConfig } from '../config.ts';
import { reject } from '../domain/result.ts';
import { type PlainCommand, printed, storeCommand, str } from './command-kit.ts';

// `backup` and `outbox …`: a copy of the store, and the delivery hold that keeps a
// restored copy (or a store started with `serve --paused`) from delivering before an
// operator has reviewed it. docs/operations.md "Backup and restore" has the procedure.

const holdView = (hold: DeliveryHold): { since: string; reason: string } => ({ since: new Date(hold.since).toISOString(), reason: hold.reason });

export const backup: PlainCommand = {
  usage: 'backup FILE [--json]',
  summary: 'Copy the SQLite store into FILE (new, 0600) while the service runs; the copy starts with delivery held. PostgreSQL: prints the pg_dump line',
  positionals: ['FILE'],
  options: {},
  needsStore: false,
  async run([file = '']) {
    const target = resolve(file);
    let outcome;
    try {
      outcome = await backUpStore(loadConfig().databaseUrl, target, Date.now);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return reject('invalidField', { detail: `FILE: ${target} exists; a backup never overwrites a file` });
      if (code === 'ENOENT' || code === 'EACCES') return reject('invalidField', { detail: `FILE: ${target} cannot be created (${code})` });
      throw error;
    }
    if (outcome.kind === 'no-store') return reject('invalidField', { detail: `HERALD_DATABASE_URL: no SQLite store at ${outcome.location}` });
    if (outcome.kind === 'use-pg-dump') {
      return reject('invalidField', { detail: `the store is PostgreSQL: herald does not copy it; back it up with pg_dump (docs/operations.md "Backup and restore"):\n  ${outcome.command}` });
    }
    return printed({ file: outcome.file, pages: outcome.pages, deliveryHeld: true }, [
      `backed up to ${outcome.file} (${outcome.pages} pages, mode 0600)`,
      'a server started on this copy holds delivery until `herald outbox release`',
    ]);
  },
};

export const outboxHold = storeCommand({
  usage: 'outbox hold [--reason TEXT] [--json]',
  summary: 'Hold delivery in every process of this store: messages are accepted and queued, none delivered, no webhook posted',
  options: { reason: { type: 'string' } },
  async run(deps, _args, values) {
    const hold = await holdDelivery(deps.db, { since: deps.clock(), reason: str(values.reason) ?? 'held by `herald outbox hold`' });
    return printed({ held: holdView(hold) }, [`delivery held since ${holdView(hold).since} (${hold.reason})`]);
  },
});

export const outboxRelease = storeCommand({
  usage: 'outbox release [--json]',
  summary: 'Release a delivery hold (after review): the processes deliver the queue and post webhooks within seconds',
  async run(deps) {
    const released = await releaseDelivery(deps.db);
    if (released === undefined) return printed({ released: null }, ['delivery was not held']);
    return printed({ released: holdView(released) }, [`delivery released (held since ${holdView(released).since}: ${released.reason})`]);
  },
});

export const outboxStatus = storeCommand({
  usage: 'outbox status [--json]',
  summary: 'Whether delivery is held, since when and why',
  async run(deps) {
    const hold = await readDeliveryHold(deps.db);
    if (hold === undefined) return printed({ held: null }, ['delivery is not held']);
    return printed({ held: holdView(hold) }, [`delivery held since ${holdView(hold).since} (${hold.reason}); release it with \`herald outbox release\``]);
  },
});
