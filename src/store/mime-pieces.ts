import type { Executor } from './database.ts';
import { assemble, layOut, parseLayout, piecesNamed } from './mime-layout.ts';
import { MAX_IN_LIST, execute, placeholders, queryRows, statement, statementPerCount } from './prepared-statement.ts';

// The pieces a send's stored messages share (store/mime-layout.ts), kept once per send
// in `mime_pieces`, found through the message's send.

/** A message's text as stored: whole (`layout` null), or a layout whose pieces its send keeps. */
export interface StoredText {
  readonly body: string;
  readonly layout: string | null;
}

/**
 * Keeps the shared pieces of a message's text under its send, sending to the database
 * only the pieces the send does not have yet (the first copy brings them, the others
 * name them), and returns what the message's own row holds.
 */
export async function storeText(db: Executor, messageId: string, text: string): Promise<StoredText> {
  const laidOut = layOut(text);
  if (laidOut === undefined) return { body: text, layout: null };
  const kept = new Set((await piecesOfSend(db, messageId, [...laidOut.pieces.keys()])).map((row) => row.sha256));
  // In hash order: transactions storing copies of one send at once take the pieces' row locks in one order, never crosswise.
  for (const hash of [...laidOut.pieces.keys()].sort()) {
    if (!kept.has(hash)) await execute(db, INSERT_PIECE, [messageId, hash, laidOut.pieces.get(hash)]);
  }
  return { body: '', layout: JSON.stringify(laidOut.layout) };
}

/** The text a message's row holds, its layout's pieces put back in place. */
export async function loadText(db: Executor, messageId: string, stored: StoredText): Promise<string> {
  if (stored.layout === null) return stored.body;
  const layout = parseLayout(stored.layout);
  const rows = await piecesOfSend(db, messageId, piecesNamed(layout), true);
  return assemble(layout, new Map(rows.map((row) => [row.sha256, row.body ?? ''])));
}

async function piecesOfSend(db: Executor, messageId: string, hashes: readonly string[], withBody = false): Promise<{ sha256: string; body?: string }[]> {
  const rows: { sha256: string; body?: string }[] = [];
  for (let i = 0; i < hashes.length; i += MAX_IN_LIST) {
    const part = hashes.slice(i, i + MAX_IN_LIST);
    rows.push(...await queryRows<{ sha256: string; body?: string }>(db, (withBody ? selectPieces : selectPieceHashes)(part.length), [messageId, ...part]));
  }
  return rows;
}

// Two workers storing copies of one send at once may both find a piece missing.
const INSERT_PIECE = statement(`
  insert into mime_pieces (send_id, sha256, body)
  select send_id, $2, $3 from messages where id = $1
  on conflict (send_id, sha256) do nothing`);
const selectPieceHashes = statementPerCount((n) => `
  select p.sha256 from mime_pieces p join messages m on m.send_id = p.send_id
  where m.id = $1 and p.sha256 in (${placeholders(2, n)})`);
const selectPieces = statementPerCount((n) => `
  select p.sha256, p.body from mime_pieces p join messages m on m.send_id = p.send_id
  where m.id = $1 and p.sha256 in (${placeholders(2, n)})`);
