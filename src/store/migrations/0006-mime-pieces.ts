import type { Kysely } from 'kysely';
import { addNullable, belongsTo, required } from './column-kit.ts';

// Stored messages (captures, certified .eml) as layouts over pieces their send keeps
// once (store/mime-layout.ts): the copies of a multi-recipient email share the To
// header, the bodies and the attachments. A piece belongs to its send and goes with
// it. Rows written before keep their whole text (`layout` null) and read as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mime_pieces')
    .$call(belongsTo('send_id', 'sends.id'))
    .$call(required('text', 'sha256', 'body'))
    .addPrimaryKeyConstraint('mime_pieces_pk', ['send_id', 'sha256'])
    .execute();
  await addNullable(db, 'captures', { layout: 'text' });
  await addNullable(db, 'certificates', { layout: 'text' });
}
