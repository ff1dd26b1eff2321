import { sql } from 'kysely';
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
import * as invitationAddresses from './migrations/0021-invitation-addresses.ts';
import * as testCampaigns from './migrations/0022-test-campaigns.ts';
import * as allowListAppliesTo from './migrations/0024-allow-list-applies-to.ts';
import * as leaseTakeover from './migrations/0025-lease-takeover.ts';
import * as sendRequestId from './migrations/0027-send-request-id.ts';
import * as sendSource from './migrations/0028-send-source.ts';
import * as listening from './migrations/0029-listening.ts';
import * as findableMessages from './migrations/0030-findable-messages.ts';
import * as savedSegments from './migrations/0032-saved-segments.ts';
import * as whatsappTemplateSubmission from './migrations/0033-whatsapp-template-submission.ts';
import * as webhookEndpoints from './migrations/0034-webhook-endpoints.ts';
import * as userLocale from './migrations/0031-user-locale.ts';
import * as scheduledSends from './migrations/0035-scheduled-sends.ts';
import * as fallbackLegs from './migrations/0036-fallback-legs.ts';

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
  '0021-invitation-addresses': invitationAddresses,
  '0022-test-campaigns': testCampaigns,
  '0024-allow-list-applies-to': allowListAppliesTo,
  '0025-lease-takeover': leaseTakeover,
  '0027-send-request-id': sendRequestId,
  '0028-send-source': sendSource,
  '0029-listening': listening,
  '0030-findable-messages': findableMessages,
  '0032-saved-segments': savedSegments,
  '0033-whatsapp-template-submission': whatsappTemplateSubmission,
  '0034-webhook-endpoints': webhookEndpoints,
  '0031-user-locale': userLocale,
  '0035-scheduled-sends': scheduledSends,
  '0036-fallback-legs': fallbackLegs,
};

/** Every migration's name, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

/** A migration this start applied, and how long it took (its own statements; on PostgreSQL inside the one migrating transaction). */
export interface AppliedMigration {
  readonly name: string;
  readonly ms: number;
}

/**
 * The store holds migrations this version of herald does not have: it was migrated by
 * a newer (or another) build, typically before a downgrade. Running on would mean a
 * schema the code does not know, so the start stops.
 */
export class UnknownMigrationsError extends Error {
  /** The store's migrations missing from this version, in name order. */
  readonly unknown: readonly string[];
  /** This version's latest migration. */
  readonly latest: string;
  constructor(unknown: readonly string[], latest: string) {
    super(`the store holds migrations this version does not have: ${unknown.join(', ')} (this version's latest is ${latest})`);
    this.name = 'UnknownMigrationsError';
    this.unknown = unknown;
    this.latest = latest;
  }
  /** True when every unknown migration sorts after this version's latest: the store is from a newer herald. */
  get newer(): boolean {
    return this.unknown.every((name) => name > this.latest);
  }
}

/** Every migration, each timed as it runs; `applied` collects them in order. */
function timedProvider(applied: AppliedMigration[]): MigrationProvider {
  const timed = Object.fromEntries(Object.entries(MIGRATIONS).map(([name, migration]): [string, Migration] => [name, {
    ...migration,
    up: async (db) => {
      const started = performance.now();
      await migration.up(db);
      applied.push({ name, ms: Math.round(performance.now() - started) });
    },
  }]));
  return { getMigrations: async () => timed };
}

/**
 * Brings the schema up to date and says what it applied; safe to run from several
 * processes at once (Kysely takes a lock). Throws UnknownMigrationsError when the
 * store ran a migration this version does not have.
 */
export async function migrateToLatest(db: Db): Promise<readonly AppliedMigration[]> {
  const applied: AppliedMigration[] = [];
  // Numbers were handed out ahead of time (0009 landed before 0005–0008): a store that
  // already ran a later one must still take an earlier one that arrives after it.
  const { error, results } = await new Migrator({ db, provider: timedProvider(applied), allowUnorderedMigrations: true }).migrateToLatest();
  if (error) {
    // Kysely names only the first unknown one, in words of its own: the table says them all.
    const unknown = await unknownMigrations(db);
    if (unknown.length > 0) throw new UnknownMigrationsError(unknown, MIGRATION_NAMES.at(-1) ?? '');
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return applied;
}

/** The store's recorded migrations that this version does not have; none when the table is not there yet. */
async function unknownMigrations(db: Db): Promise<string[]> {
  const known = new Set(MIGRATION_NAMES);
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    return rows.map((r) => r.name).filter((name) => !known.has(name));
  } catch {
    // No table (the failure came before it was made): no migration can be unknown.
    return [];
  }
}
