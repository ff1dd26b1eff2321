import type { SessionRecord } from '../domain/user.ts';
import type { Executor } from './database.ts';

// Sessions of account users and of the operator console, as rows: a request is signed
// in only while its row says so, so an ending written by any process applies at once
// everywhere. The cookie's value is stored as its SHA-256 only.

export type SessionTable = 'sessions' | 'operator_sessions';

export interface NewSession {
  readonly id: string;
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export async function insertUserSession(db: Executor, session: NewSession & { userId: string }): Promise<void> {
  await db.insertInto('sessions').values({
    id: session.id, token_hash: session.tokenHash, user_id: session.userId,
    created_at: session.createdAt, last_seen_at: session.createdAt, expires_at: session.expiresAt, ended_at: null,
  }).execute();
}

export async function insertOperatorSession(db: Executor, session: NewSession): Promise<void> {
  await db.insertInto('operator_sessions').values({
    id: session.id, token_hash: session.tokenHash,
    created_at: session.createdAt, last_seen_at: session.createdAt, expires_at: session.expiresAt, ended_at: null,
  }).execute();
}

/** The live user session with this hash: not ended, not past its absolute end, not idle longer than idleMs. */
export async function findLiveUserSession(db: Executor, tokenHash: string, now: number, idleMs: number): Promise<SessionRecord | undefined> {
  const row = await db.selectFrom('sessions').selectAll()
    .where('token_hash', '=', tokenHash).where('ended_at', 'is', null)
    .where('expires_at', '>', now).where('last_seen_at', '>', now - idleMs)
    .executeTakeFirst();
  return row && {
    id: row.id, userId: row.user_id, createdAt: Number(row.created_at), lastSeenAt: Number(row.last_seen_at), expiresAt: Number(row.expires_at),
  };
}

/** The live operator session with this hash (the same rules). */
export async function findLiveOperatorSession(db: Executor, tokenHash: string, now: number, idleMs: number): Promise<Omit<SessionRecord, 'userId'> | undefined> {
  const row = await db.selectFrom('operator_sessions').selectAll()
    .where('token_hash', '=', tokenHash).where('ended_at', 'is', null)
    .where('expires_at', '>', now).where('last_seen_at', '>', now - idleMs)
    .executeTakeFirst();
  return row && { id: row.id, createdAt: Number(row.created_at), lastSeenAt: Number(row.last_seen_at), expiresAt: Number(row.expires_at) };
}

export async function touchSession(db: Executor, table: SessionTable, id: string, now: number): Promise<void> {
  await db.updateTable(table).set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function endSession(db: Executor, table: SessionTable, id: string, now: number): Promise<void> {
  await db.updateTable(table).set({ ended_at: now }).where('id', '=', id).where('ended_at', 'is', null).execute();
}

/** Ends every session of the user (sign out everywhere, a new password). */
export async function endUserSessions(db: Executor, userId: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ ended_at: now }).where('user_id', '=', userId).where('ended_at', 'is', null).execute();
}

/** Ends the user's sessions but one (the one that changed the password stays signed in). */
export async function endOtherUserSessions(db: Executor, userId: string, keepId: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ ended_at: now })
    .where('user_id', '=', userId).where('id', '!=', keepId).where('ended_at', 'is', null).execute();
}
