import type { Kysely } from 'kysely';
import { addNullable, belongsTo, createTable, primaryKey, required } from './column-kit.ts';

// Stored messages (captures, certified .eml) as layouts over pieces their send keeps
// once (store/mime-layout.ts): the copies of a multi-recipient email share the To
// header, the bodies and the attachments. A piece belongs to its send and goes with
// it. Rows written before keep their whole text (`layout` null) and read as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await createTable(db, 'mime_pieces', [belongsTo('send_id', 'sends.id'), required('text', 'sha256', 'body'), primaryKey('mime_pieces_pk', ['send_id', 'sha256'])]);
  await addNullable(db, 'captures', { layout: 'text' });
  await addNullable(db, 'certificates', { layout: 'text' });
}
