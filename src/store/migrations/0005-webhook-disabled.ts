import type { Kysely } from 'kysely';
import { newWebhookSecret } from '../../domain/webhook-secret.ts';
import { addNullable } from './column-kit.ts';

// A webhook endpoint that answered 410 Gone is disabled until the account saves its
// settings again (docs/webhooks.md): when and why, shown by GET /v1/webhooks.
// And every account with a URL has a secret: before this, a URL set by the CLI or an
// operator could lack one until the dispatcher made it on first use (a read that
// wrote); those rows get theirs now, so reads never write.
export async function up(db: Kysely<unknown>): Promise<void> {
  await addNullable(db, 'accounts', { webhook_disabled_at: 'bigint', webhook_disabled_reason: 'text' });

  const accounts = db as unknown as Kysely<{ accounts: { id: string; webhook_url: string | null; webhook_secret: string | null } }>;
  const unsigned = await accounts.selectFrom('accounts').select('id')
    .where('webhook_url', 'is not', null).where('webhook_secret', 'is', null).execute();
  for (const { id } of unsigned) {
    await accounts.updateTable('accounts').set({ webhook_secret: newWebhookSecret() })
      .where('id', '=', id).where('webhook_secret', 'is', null).execute();
  }
}
