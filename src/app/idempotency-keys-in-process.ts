// The Idempotency-Keys one process serves (app/idempotent-send.ts), kept per store.

/**
 * What one process keeps per store: the keys being served now, and when expired ones
 * were last purged. Per store rather than per route (/v1/email and a campaign's send
 * share one account's keys): service.ts makes one and passes it in AppDeps.
 */
export class IdempotencyKeysInProcess {
  readonly inFlight = new Set<string>();
  nextPurgeAt = 0;
}
