import { sql, type Kysely } from 'kysely';

// Scopes beyond the channels: `webhooks` (settings, secret, delivery log) and
// `account` (keys, users, account settings). Before them every key could reach the
// webhook routes; a key holding all three channels was an all-purpose key, so it keeps
// the webhooks (and stays all-purpose for what existed). `account` guards what is new
// and is granted to no existing key. A key with fewer channels loses the webhooks, by
// design. Scopes are read from this row, never from the key's JWT claim.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update api_keys set scopes = 'email sms whatsapp webhooks' where scopes = 'email sms whatsapp'`.execute(db);
}
