// Wake-ups across processes. A process that commits work (outbox rows, webhook
// deliveries) notifies a named channel; idle workers in every process that listens
// on it claim at once instead of on their next poll. Best effort by design: a lost
// notification costs one poll interval, never a message, because polling stays.
import pg from 'pg';

/** The channel the outbox worker listens on; the payload is a message channel (email, sms, whatsapp) or empty (all). */
export const OUTBOX_WAKE = 'herald_outbox';

export interface Notifier {
  /** Tells every listener of `channel` that work was committed. Call after the commit; never throws. */
  notify(channel: string, payload?: string): void;
  /**
   * Calls `onWake(payload)` for each notification on `channel`, and with an empty
   * payload after a lost connection came back (anything may have been missed then).
   * Returns the function that stops listening.
   */
  listen(channel: string, onWake: (payload: string) => void): () => Promise<void>;
}

/** SQLite: one server process owns the store and wakes its worker directly, so there is nobody else to tell. */
export const LOCAL_NOTIFIER: Notifier = {
  notify() {},
  listen: () => async () => {},
};

const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 30_000;

/**
 * LISTEN/NOTIFY. Notifications go out through the pool (`select pg_notify(...)`), at
 * most one in flight per channel and payload: a burst of commits sends one, and one
 * more if commits arrived while it was on its way. Listening takes a dedicated client
 * (a pooled one would be handed to queries and lose its LISTEN), reconnected with
 * backoff when the server drops it.
 *
 * Notification channels belong to the database, not to a schema, so outside the
 * `public` schema the channel is named `<schema>.<channel>`: installations (and test
 * runs) sharing a database in different schemas do not wake one another.
 */
export class PostgresNotifier implements Notifier {
  readonly #pool: pg.Pool;
  readonly #newClient: () => pg.Client;
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  /** Notify requests per channel-and-payload: on their way, or on their way with another wanted after. */
  readonly #sending = new Map<string, 'sending' | 'again'>();
  #schema: Promise<string | null> | undefined;
  #client: pg.Client | undefined;
  /** The schema of the listening client, once it is connected and listening. */
  #listening: string | null | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryMs = 0;
  #lostOnce = false;

  constructor(pool: pg.Pool, newClient: () => pg.Client) {
    this.#pool = pool;
    this.#newClient = newClient;
  }

  notify(channel: string, payload = ''): void {
    const key = `${channel}\u0000${payload}`;
    if (this.#sending.has(key)) {
      this.#sending.set(key, 'again');
      return;
    }
    this.#sending.set(key, 'sending');
    void this.#send(key, channel, payload);
  }

  async #send(key: string, channel: string, payload: string): Promise<void> {
    for (;;) {
      try {
        await this.#pool.query('select pg_notify($1, $2)', [qualified(await this.#currentSchema(), channel), payload]);
      } catch {
        // The pool is closed or the server is away: the listeners' poll finds the work.
      }
      if (this.#sending.get(key) !== 'again') break;
      this.#sending.set(key, 'sending');
    }
    this.#sending.delete(key);
  }

  #currentSchema(): Promise<string | null> {
    this.#schema ??= this.#pool.query<{ schema: string | null }>('select current_schema() as schema').then(
      (result) => result.rows[0]?.schema ?? null,
      (error: unknown) => {
        this.#schema = undefined;
        throw error;
      },
    );
    return this.#schema;
  }

  listen(channel: string, onWake: (payload: string) => void): () => Promise<void> {
    let wakers = this.#listeners.get(channel);
    if (!wakers) {
      wakers = new Set();
      this.#listeners.set(channel, wakers);
      if (this.#client && this.#listening !== undefined) void this.#command(this.#client, 'LISTEN', qualified(this.#listening, channel));
    }
    wakers.add(onWake);
    this.#connect();
    return async () => {
      if (!wakers.delete(onWake) || wakers.size > 0) return;
      this.#listeners.delete(channel);
      if (this.#listeners.size > 0) {
        if (this.#client && this.#listening !== undefined) await this.#command(this.#client, 'UNLISTEN', qualified(this.#listening, channel));
        return;
      }
      await this.#disconnect();
    };
  }

  #connect(): void {
    if (this.#client || this.#retryTimer || this.#listeners.size === 0) return;
    const client = this.#newClient();
    this.#client = client;
    this.#listening = undefined;
    client.on('notification', (message) => this.#dispatch(message.channel, message.payload ?? ''));
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    void (async () => {
      await client.connect();
      const { rows } = await client.query<{ schema: string | null }>('select current_schema() as schema');
      if (this.#client !== client) return;
      this.#listening = rows[0]?.schema ?? null;
      // Channels added while this loop awaits are visited too (a Map iterates live);
      // listen() may also have sent its own LISTEN, which is harmless twice.
      for (const channel of this.#listeners.keys()) await client.query(`LISTEN ${client.escapeIdentifier(qualified(this.#listening, channel))}`);
      this.#retryMs = 0;
      if (this.#lostOnce) for (const wakers of this.#listeners.values()) for (const wake of wakers) wake('');
    })().catch(() => this.#lost(client));
  }

  async #command(client: pg.Client, command: 'LISTEN' | 'UNLISTEN', name: string): Promise<void> {
    try {
      await client.query(`${command} ${client.escapeIdentifier(name)}`);
    } catch {
      this.#lost(client);
    }
  }

  #dispatch(name: string, payload: string): void {
    if (this.#listening === undefined) return;
    for (const [channel, wakers] of this.#listeners) {
      if (qualified(this.#listening, channel) !== name) continue;
      for (const wake of wakers) wake(payload);
    }
  }

  /** The listening connection failed or ended: reconnect with backoff while anyone still listens. */
  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#listening = undefined;
    client.removeAllListeners();
    client.on('error', () => {});
    client.end().catch(() => {});
    if (this.#listeners.size === 0) return;
    this.#lostOnce = true;
    this.#retryMs = Math.min(Math.max(this.#retryMs * 2, RECONNECT_FIRST_MS), RECONNECT_MAX_MS);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#connect();
    }, this.#retryMs);
    this.#retryTimer.unref();
  }

  async #disconnect(): Promise<void> {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#listening = undefined;
    if (!client) return;
    client.removeAllListeners();
    client.on('error', () => {});
    await client.end().catch(() => {});
  }
}

function qualified(schema: string | null, channel: string): string {
  return schema === null || schema === 'public' ? channel : `${schema}.${channel}`;
}
