import type { Kysely } from 'kysely';
import { addStartingAt } from './column-kit.ts';

// Bounded imports (issue 19, item 1). `attempts` counts the claims of an import since
// its last committed batch, taken before the work starts: an import whose reading
// kills its process (or fails) that many times in a row ends `failed` instead of being
// taken up again for ever. `body_bytes` is the size of its stored body, for the
// account's quota of stored uploads. An index finds an account's imports in flight.
export async function up(db: Kysely<unknown>): Promise<void> {
  await addStartingAt(db, 'contact_imports', 0, { attempts: 'integer', body_bytes: 'bigint' });
  await db.schema.createIndex('contact_imports_account_status').on('contact_imports').columns(['account_id', 'status']).execute();
}
