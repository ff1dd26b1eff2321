import type { Kysely } from 'kysely';

// Stored messages (captures, certified .eml) as layouts over pieces their send keeps
// once (store/mime-layout.ts): the copies of a multi-recipient email share the To
// header, the bodies and the attachments. A piece belongs to its send and goes with
// it. Rows written before keep their whole text (`layout` null) and read as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mime_pieces')
    .addColumn('send_id', 'text', (c) => c.notNull().references('sends.id').onDelete('cascade'))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('mime_pieces_pk', ['send_id', 'sha256'])
    .execute();
  await db.schema.alterTable('captures').addColumn('layout', 'text').execute();
  await db.schema.alterTable('certificates').addColumn('layout', 'text').execute();
}
