import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { uuidv7 } from '../../src/app/uuidv7-source.ts';
import { createAccount } from '../../src/app/create-account.ts';
import { recordPeerStatus } from '../../src/app/record-peer-status.ts';
import { loadConfig } from '../../src/config.ts';
import { createService } from '../../src/service.ts';
import { insertSend } from '../../src/store/messages.ts';
import { serveParent } from './child.ts';
import { installSqlTiming, recordSqlTiming, sqlTimings } from './sql-timing.ts';

// herald for the webhook benchmark, in a process of its own: createService from
// HERALD_* variables with its webhook dispatcher (the outbox worker stays off: nothing
// is sent; BENCH_WEBHOOK_OPTIONS may override the dispatcher's defaults), one account
// whose webhook URL is the parent's receiver. `prepare` stores SMS
// messages as the SMSC took them (status `sent`, provider_ref set) without timing;
// `record` then feeds their delivery receipts through recordPeerStatus, the path every
// SMPP receipt takes, `concurrency` at a time: each one commits a `delivered` event and
// its webhook delivery, and wakes the dispatcher.

export interface WebhookHeraldReady {
  readonly accountId: string;
}

export interface WebhookHeraldStats {
  /** Webhook deliveries by status. */
  readonly deliveries: Record<string, number>;
  /** Attempts made (one per delivery when nothing failed). */
  readonly attempts: number;
}

if (process.env.BENCH_SQL_TIMING === 'on') installSqlTiming();
const config = loadConfig(process.env);
const service = await createService(config, { worker: false, webhookOptions: JSON.parse(process.env.BENCH_WEBHOOK_OPTIONS ?? '{}') });
const { deps } = service;
const { account, apiKey } = await createAccount(deps, { name: 'bench', messagesLeft: 0, rateLimitPerSecond: 1_000_000 });

// SQLite's limit on bound parameters: 500 rows of a few columns a statement.
const CHUNK = 500;

async function readStats(): Promise<WebhookHeraldStats> {
  const rows = await deps.db.selectFrom('webhook_deliveries').select(['status', sql<number>`count(*)`.as('n')]).groupBy('status').execute();
  const attempts = await deps.db.selectFrom('webhook_attempts').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return { deliveries: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), attempts: Number(attempts.n) };
}

let prepared: string[] = [];

serveParent(
  { accountId: account.id } satisfies WebhookHeraldReady,
  {
    /** Points the account's webhook at `url` through the API; answers the signing secret. */
    async subscribe(args) {
      const { url } = args as { url: string };
      const res = await service.http.inject({
        method: 'PUT', url: '/v1/webhooks', headers: { authorization: `Bearer ${apiKey.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ url }),
      });
      if (res.statusCode !== 200) throw new Error(`PUT /v1/webhooks answered ${res.statusCode}: ${res.body}`);
      return (res.json() as { secret: string }).secret;
    },
    /** Starts (or resumes) the webhook dispatcher: its loop, woken by every recorded receipt. */
    async start() {
      service.webhooks.start();
    },
    /** Stops the dispatcher once its posts in flight are done: what is recorded now waits. */
    async pause() {
      await service.webhooks.stop();
    },
    /** `count` SMS messages already taken by the SMSC; their msgid is their provider reference. Not timed. */
    async prepare(args) {
      const { count } = args as { count: number };
      const now = deps.clock();
      const ids = Array.from({ length: count }, () => uuidv7());
      await deps.db.transaction().execute(async (tx) => {
        const sendId = uuidv7();
        await insertSend(tx, { id: sendId, accountId: account.id, channel: 'sms', payload: { text: 'bench' }, now, eventIds: uuidv7 },
          ids.map((id, i) => ({ id, recipient: `+52155${String(10_000_000 + i).padStart(8, '0')}`, role: 'to', costMessages: 0, costBalance: 0 })));
        for (let i = 0; i < ids.length; i += CHUNK) {
          const part = ids.slice(i, i + CHUNK);
          await tx.deleteFrom('outbox').where('message_id', 'in', part).execute();
        }
        await tx.updateTable('messages').set((eb) => ({ status: 'sent', provider_ref: eb.ref('id') })).where('send_id', '=', sendId).execute();
      });
      prepared = ids;
    },
    /** The prepared messages' delivery receipts, `concurrency` in flight; answers when all are committed. */
    async record(args) {
      const { concurrency } = args as { concurrency: number };
      const queue = prepared;
      prepared = [];
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < queue.length) {
          const providerRef = queue[next++] ?? '';
          const result = await recordPeerStatus(deps, { channel: 'sms', providerRef, status: 'delivered', peer: 'smsc', response: 'stat:DELIVRD err:000' });
          if (result !== 'recorded') throw new Error(`receipt for ${providerRef}: ${result}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, lane));
    },
    /** Delivery statuses once nothing is pending (or as they are after `waitMs`). */
    async stats(args) {
      const waitMs = (args as { waitMs?: number } | null)?.waitMs ?? 0;
      const until = performance.now() + waitMs;
      let stats = await readStats();
      while ((stats.deliveries.pending ?? 0) > 0 && performance.now() < until) {
        await sleep(20);
        stats = await readStats();
      }
      return stats;
    },
    async sqlTimings() {
      return sqlTimings();
    },
    async recordSqlTiming(args) {
      const { on, reset } = args as { on: boolean; reset?: boolean };
      recordSqlTiming(on, reset ?? false);
    },
  },
  () => service.close(),
);
