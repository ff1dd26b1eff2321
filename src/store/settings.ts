import type { Executor } from './database.ts';

export async function getSetting(db: Executor, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores `value` unless the key exists; returns the value that is stored afterwards (first writer wins). */
export async function putSettingIfAbsent(db: Executor, key: string, value: string): Promise<string> {
  await db.insertInto('settings').values({ key, value }).onConflict((oc) => oc.column('key').doNothing()).execute();
  const stored = await getSetting(db, key);
  if (stored === undefined) throw new Error(`setting ${key} vanished after insert`);
  return stored;
}

/** Stores `value` under the key, replacing what was there. */
export async function putSetting(db: Executor, key: string, value: string): Promise<void> {
  await db.insertInto('settings').values({ key, value }).onConflict((oc) => oc.column('key').doUpdateSet({ value })).execute();
}

/** Removes the key; true when it was there. */
export async function deleteSetting(db: Executor, key: string): Promise<boolean> {
  const result = await db.deleteFrom('settings').where('key', '=', key).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
