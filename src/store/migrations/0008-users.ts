import type { Kysely } from 'kysely';
import { accountRow, belongsTo, idKey, nullable, required, stamps } from './column-kit.ts';

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
    .$call(accountRow)
    // email: lower-cased; role: owner | developer | viewer
    .$call(required('text', 'email', 'role'))
    // password_hash: scrypt, PHC-like text (app/password-hash.ts); null while the invitation is not accepted.
    // Encrypted base32 TOTP secrets: the confirmed one (two-factor on), and one being set up.
    .$call(nullable('text', 'password_hash', 'totp_secret', 'totp_pending_secret'))
    // The last accepted TOTP time step: a code is never accepted twice.
    .$call(nullable('bigint', 'totp_last_step'))
    .$call(stamps)
    .$call(nullable('bigint', 'last_sign_in_at'))
    .execute();
  await db.schema.createIndex('users_email').on('users').column('email').unique().execute();
  await db.schema.createIndex('users_account').on('users').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('sessions')
    .$call(idKey)
    // SHA-256 (hex) of the cookie's value.
    .$call(required('text', 'token_hash'))
    .$call(belongsTo('user_id', 'users.id'))
    // last_seen_at: written at most once a minute, the idle lifetime counts from it; expires_at: the absolute end.
    .$call(required('bigint', 'created_at', 'last_seen_at', 'expires_at'))
    .$call(nullable('bigint', 'ended_at'))
    .execute();
  await db.schema.createIndex('sessions_token').on('sessions').column('token_hash').unique().execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id', 'expires_at']).execute();

  await db.schema
    .createTable('user_links')
    // SHA-256 (hex) of the token in the link's fragment.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .$call(belongsTo('user_id', 'users.id'))
    // invitation | password_reset
    .$call(required('text', 'purpose'))
    .$call(required('bigint', 'created_at', 'expires_at'))
    .$call(nullable('bigint', 'used_at'))
    .execute();
  await db.schema.createIndex('user_links_user').on('user_links').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('operator_sessions')
    .$call(idKey)
    .$call(required('text', 'token_hash'))
    .$call(required('bigint', 'created_at', 'last_seen_at', 'expires_at'))
    .$call(nullable('bigint', 'ended_at'))
    .execute();
  await db.schema.createIndex('operator_sessions_token').on('operator_sessions').column('token_hash').unique().execute();
}
