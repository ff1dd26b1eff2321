import type { Kysely } from 'kysely';

// Users of an account and their sign-in (issue 12, docs/users-and-sessions.md): users
// (email unique over the whole service, since sign-in names no account), sessions as
// server-side rows (so sign-out, removal and role changes apply at once in every
// process), one-time links (invitations and password resets), and the operator
// console's sessions. Every secret a browser or an email carries is stored as its
// SHA-256 only: session ids, link tokens. A TOTP secret must be read back to check a
// code, so it is stored encrypted (AES-256-GCM under a key derived from the service's
// signing secret).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // Lower-cased.
    .addColumn('email', 'text', (c) => c.notNull())
    // owner | developer | viewer
    .addColumn('role', 'text', (c) => c.notNull())
    // scrypt, PHC-like text (app/password-hash.ts); null while the invitation is not accepted.
    .addColumn('password_hash', 'text')
    // Encrypted base32 secrets: the confirmed one (two-factor on), and one being set up.
    .addColumn('totp_secret', 'text')
    .addColumn('totp_pending_secret', 'text')
    // The last accepted TOTP time step: a code is never accepted twice.
    .addColumn('totp_last_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'bigint')
    .execute();
  await db.schema.createIndex('users_email').on('users').column('email').unique().execute();
  await db.schema.createIndex('users_account').on('users').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // SHA-256 (hex) of the cookie's value.
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Written at most once a minute; the idle lifetime counts from it.
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    // The absolute end.
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .execute();
  await db.schema.createIndex('sessions_token').on('sessions').column('token_hash').unique().execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id', 'expires_at']).execute();

  await db.schema
    .createTable('user_links')
    // SHA-256 (hex) of the token in the link's fragment.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // invitation | password_reset
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('user_links_user').on('user_links').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('operator_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .execute();
  await db.schema.createIndex('operator_sessions_token').on('operator_sessions').column('token_hash').unique().execute();
}
