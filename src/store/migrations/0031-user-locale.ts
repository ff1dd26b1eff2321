import type { Kysely } from 'kysely';
import { addNullable } from './column-kit.ts';

// The language a user chose in the web application (issue 24): 'en' | 'es', null while
// they have not chosen (the browser's language then, and English in herald's emails).
export async function up(db: Kysely<unknown>): Promise<void> {
  await addNullable(db, 'users', { locale: 'text' });
}
