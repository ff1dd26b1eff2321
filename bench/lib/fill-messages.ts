import { uuidv7Source } from '../../src/app/uuidv7-source.ts';
import type { SQLInputValue } from 'node:sqlite';
import type { Database } from '../../src/store/database.ts';
import type { OpenedStore } from '../../src/store/dialect.ts';
import { progress } from './common.ts';

// A store that has lived: N messages of one account written straight into it (not
// through the API: a million sends would take the benchmark's whole budget), oldest
// first, ids as herald makes them (UUIDv7 of their creation time). Email 70 %, SMS 25 %,
// WhatsApp 5 %; spread over 30 days; 50,000 recipients; mostly delivered, 3 % bounced,
// 2 % failed. Used by messages-log (reads over a full store) and big-store (writes into
// one). With `events`, each message also gets its event rows (1 or 2, as delivery leaves them:
// no `queued` or `sending` rows since migration 0019, the attempt's outcome carries its claim time).

const BATCH = 2000;
export const DAY_MS = 86_400_000;
export const RECIPIENTS = 50_000;

export function channelOf(i: number): 'email' | 'sms' | 'whatsapp' {
  const slot = i % 20;
  return slot < 14 ? 'email' : slot < 19 ? 'sms' : 'whatsapp';
}

/** A well-mixed hash of i (so a message's status does not follow its channel). */
function mix(i: number): number {
  let h = Math.imul(i ^ (i >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}

function statusOf(i: number): string {
  const slot = mix(i) % 100;
  return slot < 2 ? 'failed' : slot < 5 ? 'bounced' : slot < 13 ? 'sent' : 'delivered';
}

export function recipientOf(i: number, channel: string): string {
  const person = (i * 31) % RECIPIENTS;
  return channel === 'email' ? `user${person}@example${person % 97}.org` : `+52155${String(person).padStart(8, '0')}`;
}

/** The events of a finished message as a delivered one has them: sent (the attempt's outcome), then a report (the data abridged). */
function eventsOf(status: string, channel: string, at: number, doneAt: number): { type: string; at: number; data: string; sending_at: number | null }[] {
  const sent = { type: 'sent', at: at + 500, data: JSON.stringify({ response: channel === 'email' ? '250 2.0.0 Ok: queued' : 'ESME_ROK' }), sending_at: at + 100 };
  if (status === 'failed') return [{ type: 'failed', at: doneAt, data: JSON.stringify({ reason: 'the peer refused the message', code: channel === 'email' ? 550 : 11 }), sending_at: at + 100 }];
  if (status === 'sent') return [sent];
  return [sent, { type: status, at: doneAt, data: status === 'bounced' ? JSON.stringify({ bounce_type: 'hard', diagnostic: '5.1.1 user unknown' }) : '{}', sending_at: null }];
}

export interface FillOptions {
  /** The event rows of each message (sent, its report). */
  readonly events?: boolean;
}

/** N messages of one account, written in transactions of BATCH messages (with their sends and, optionally, events). */
/** The store to fill: its Kysely instance, and on SQLite its raw connection (OpenedStore). */
export type FillStore = Pick<OpenedStore, 'db' | 'direct'>;

export async function fillMessages(store: FillStore, accountId: string, n: number, start: number, options: FillOptions = {}): Promise<void> {
  let at = start;
  const ids = uuidv7Source(() => at);
  const step = (30 * DAY_MS) / n;
  for (let first = 0; first < n; first += BATCH) {
    const count = Math.min(BATCH, n - first);
    const sends: { id: string; account_id: string; channel: string; payload: string; created_at: number; family: string; metadata: null; certified: number; track_opens: number; track_clicks: number }[] = [];
    const messages: Record<string, string | number | null>[] = [];
    const events: { id: string; message_id: string; type: string; at: number; data: string; sending_at: number | null }[] = [];
    for (let i = first; i < first + count; i += 1) {
      at = Math.floor(start + i * step);
      const channel = channelOf(i);
      // One accepted request per 100 messages of a channel: the bulk sends of a busy account.
      if (i % 100 < 3) sends.push({ id: ids(), account_id: accountId, channel, payload: '{}', created_at: at, family: 'transactional', metadata: null, certified: 0, track_opens: 0, track_clicks: 0 });
      const sendId = sends.findLast((s) => s.channel === channel)?.id ?? sends[0]?.id ?? '';
      const id = ids();
      const status = statusOf(i);
      messages.push({
        id, account_id: accountId, send_id: sendId, channel, recipient: recipientOf(i, channel), recipient_role: 'to', status,
        cost_messages: channel === 'whatsapp' ? 0 : 1, cost_balance: channel === 'whatsapp' ? 147 : 0, created_at: at, updated_at: at + 2000,
      });
      if (options.events === true) for (const event of eventsOf(status, channel, at, at + 2000)) events.push({ id: ids(), message_id: id, ...event });
    }
    await writeRows(store, [['sends', sends], ['messages', messages], ['message_events', events]]);
    if ((first / BATCH) % 50 === 0) progress(`  ${first + count} of ${n} messages written`);
  }
}

type Rows = readonly Record<string, unknown>[];

/**
 * One transaction of rows, each table's in order. On SQLite one prepared single-row
 * INSERT per row on the raw connection (a fifth of the cost of a multi-row VALUES
 * through the builder there: store/prepared-statement.ts); on PostgreSQL multi-row
 * INSERTs, one round trip per 2,000 rows.
 */
async function writeRows(store: FillStore, tables: readonly (readonly [keyof Database & string, Rows])[]): Promise<void> {
  const { db, direct } = store;
  if (direct === undefined) {
    await db.transaction().execute(async (tx) => {
      for (const [table, rows] of tables) {
        for (let r = 0; r < rows.length; r += BATCH) await tx.insertInto(table).values(rows.slice(r, r + BATCH) as never).execute();
      }
    });
    return;
  }
  await db.connection().execute(async () => {
    direct.statement('begin immediate').run();
    try {
      for (const [table, rows] of tables) {
        const columns = Object.keys(rows[0] ?? {});
        if (columns.length === 0) continue;
        const insert = direct.statement(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
        for (const row of rows) insert.run(...columns.map((c) => row[c] as SQLInputValue));
      }
      direct.statement('commit').run();
    } catch (error) {
      direct.statement('rollback').run();
      throw error;
    }
  });
}
