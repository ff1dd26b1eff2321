import type { Executor } from './database.ts';

// The 24-hour customer-service windows: when a WhatsApp user last wrote to an
// account's number. Session (free-text) messages may be sent only inside one.

/**
 * Records an inbound message at `at`, never moving the time backwards: Meta may
 * deliver an older message's webhook after a newer one. ON CONFLICT … DO UPDATE …
 * WHERE is the same statement in SQLite and PostgreSQL.
 */
export async function touchWhatsappSession(db: Executor, session: { accountId: string; destination: string; at: number }): Promise<void> {
  await db
    .insertInto('whatsapp_sessions')
    .values({ account_id: session.accountId, destination: session.destination, last_inbound_at: session.at })
    .onConflict((conflict) =>
      conflict
        .columns(['account_id', 'destination'])
        .doUpdateSet({ last_inbound_at: session.at })
        .where('whatsapp_sessions.last_inbound_at', '<', session.at))
    .execute();
}

/** When the destination last wrote to the account; undefined if never. */
export async function lastInboundAt(db: Executor, accountId: string, destination: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('whatsapp_sessions')
    .select('last_inbound_at')
    .where('account_id', '=', accountId)
    .where('destination', '=', destination)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.last_inbound_at);
}
