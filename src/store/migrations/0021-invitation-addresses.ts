import { sql, type Kysely } from 'kysely';

// An address belongs to one user who signs in (sign-in names no account), but an
// invitation no longer holds it (issue 19): several accounts may each have a pending
// invitation of the same address, and inviting an address that signs in elsewhere is
// answered as for any other, so the answer tells nobody who uses herald. The unique
// index now covers only users with a password; the invitee learns at acceptance that
// the address is taken (app/users.ts setPasswordByLink).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_email').execute();
  await db.schema.createIndex('users_email_signs_in').on('users').column('email').unique().where(sql.ref('password_hash'), 'is not', null).execute();
  await db.schema.createIndex('users_email_account').on('users').columns(['email', 'account_id']).execute();
}
