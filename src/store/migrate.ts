import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { Db } from './database.ts';
import * as initial from './migrations/0001-initial.ts';
import * as realDelivery from './migrations/0002-real-delivery.ts';
import * as events from './migrations/0003-events.ts';
import * as routeScopes from './migrations/0004-route-scopes.ts';
import * as webhookDisabled from './migrations/0005-webhook-disabled.ts';
import * as mimePieces from './migrations/0006-mime-pieces.ts';
import * as users from './migrations/0008-users.ts';
import * as audience from './migrations/0009-audience.ts';
import * as campaigns from './migrations/0010-campaigns.ts';
import * as accountApp from './migrations/0011-account-app.ts';
import * as idempotencyKeys from './migrations/0012-idempotency-keys.ts';
import * as sandbox from './migrations/0013-sandbox.ts';
import * as campaignDomainPace from './migrations/0014-campaign-domain-pace.ts';
import * as messagesLogOrder from './migrations/0016-messages-log-order.ts';
import * as uniqueAccountNames from './migrations/0017-unique-account-names.ts';
import * as retention from './migrations/0018-retention.ts';
import * as derivedSteps from './migrations/0019-derived-steps.ts';
import * as importAttempts from './migrations/0020-import-attempts.ts';

// Migrations are listed in code rather than read from a folder at run time, so the
// set is fixed at review time and works the same from any working directory.
const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-real-delivery': realDelivery,
  '0003-events': events,
  '0004-route-scopes': routeScopes,
  '0005-webhook-disabled': webhookDisabled,
  '0006-mime-pieces': mimePieces,
  '0008-users': users,
  '0009-audience': audience,
  '0010-campaigns': campaigns,
  '0011-account-app': accountApp,
  '0012-idempotency-keys': idempotencyKeys,
  '0013-sandbox': sandbox,
  '0014-campaign-domain-pace': campaignDomainPace,
  '0016-messages-log-order': messagesLogOrder,
  '0017-unique-account-names': uniqueAccountNames,
  '0018-retention': retention,
  '0019-derived-steps': derivedSteps,
  '0020-import-attempts': importAttempts,
};

/** Every migration's name, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema up to date; safe to run from several processes at once (Kysely takes a lock). */
export async function migrateToLatest(db: Db): Promise<void> {
  // Numbers were handed out ahead of time (0009 landed before 0005–0008): a store that
  // already ran a later one must still take an earlier one that arrives after it.
  const { error, results } = await new Migrator({ db, provider, allowUnorderedMigrations: true }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
