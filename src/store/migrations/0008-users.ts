import type { Kysely } from 'kysely';
import { accountRow, belongsTo, createTable, idKey, nullable, required, stamps, textKey } from './column-kit.ts';

// Users of an account and their sign-in (issue 12, docs/users-and-sessions.md): users
// (email unique over the whole service, since sign-in names no account), sessions as
// server-side rows (so sign-out, removal and role changes apply at once in every
// process), one-time links (invitations and password resets), and the operator
// console's sessions. Every secret a browser or an email carries is stored as its
// SHA-256 only: session ids, link tokens. A TOTP secret must be read back to check a
// code, so it is stored encrypted (AES-256-GCM under a key derived from the service's
// signing secret).
export async function up(db: Kysely<unknown>): Promise<void> {
  // email: lower-cased; role: owner | developer | viewer; password_hash: scrypt, PHC-like text
  // (app/password-hash.ts), null while the invitation is not accepted; totp_*: encrypted base32
  // secrets, the confirmed one (two-factor on) and one being set up; totp_last_step: the last
  // accepted TOTP time step, so a code is never accepted twice.
  await createTable(db, 'users', [
    accountRow, required('text', 'email', 'role'), nullable('text', 'password_hash', 'totp_secret', 'totp_pending_secret'),
    nullable('bigint', 'totp_last_step'), stamps, nullable('bigint', 'last_sign_in_at'),
  ]);
  await db.schema.createIndex('users_email').on('users').column('email').unique().execute();
  await db.schema.createIndex('users_account').on('users').columns(['account_id', 'id']).execute();

  // token_hash: SHA-256 (hex) of the cookie's value; last_seen_at: written at most once a minute,
  // the idle lifetime counts from it; expires_at: the absolute end.
  await createTable(db, 'sessions', [
    idKey, required('text', 'token_hash'), belongsTo('user_id', 'users.id'), required('bigint', 'created_at', 'last_seen_at', 'expires_at'), nullable('bigint', 'ended_at'),
  ]);
  await db.schema.createIndex('sessions_token').on('sessions').column('token_hash').unique().execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id', 'expires_at']).execute();

  // token_hash: SHA-256 (hex) of the token in the link's fragment; purpose: invitation | password_reset
  await createTable(db, 'user_links', [
    textKey('token_hash'), belongsTo('user_id', 'users.id'), required('text', 'purpose'), required('bigint', 'created_at', 'expires_at'), nullable('bigint', 'used_at'),
  ]);
  await db.schema.createIndex('user_links_user').on('user_links').columns(['user_id', 'purpose']).execute();

  await createTable(db, 'operator_sessions', [idKey, required('text', 'token_hash'), required('bigint', 'created_at', 'last_seen_at', 'expires_at'), nullable('bigint', 'ended_at')]);
  await db.schema.createIndex('operator_sessions_token').on('operator_sessions').column('token_hash').unique().execute();
}
