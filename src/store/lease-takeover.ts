import type { Db } from './database.ts';

// Fast takeover: the leases of the delivery queues, campaigns, contact imports and WhatsApp media fetches are taken under the id of the process
// that holds them (its row in `processes`, app/process-heartbeat.ts). A process whose
// heartbeat has stopped is dead, or cut off from the store: its leases are made due at
// once, so the messages it held go out within seconds instead of after the whole lease
// (5 minutes on the outbox, 60 s on an import, by default). The lease time stays as the backstop, for
// leases whose owner is not a process id (tests' own owners) or whose row is gone.
//
// Each of these writes only moves lease_expires_at (and the outbox's available_at) to
// now: the claims take such rows as they take any expired lease, and every write of
// the old owner, conditioned on lease_owner, changes nothing once another has claimed.

export interface TakenOver {
  /** The processes whose leases were taken, with when each was last seen. */
  readonly processes: readonly { readonly id: string; readonly pid: number; readonly host: string; readonly lastSeenAt: number }[];
  readonly outbox: number;
  readonly webhooks: number;
  readonly simulatedReports: number;
  readonly campaigns: number;
  /** Running contact imports (an upload still `receiving` is its receiver's, not taken). */
  readonly imports: number;
  /** WhatsApp media being fetched (queue/inbound-media/). */
  readonly inboundMedia: number;
}

/**
 * Takes over the leases of the processes last seen before `staleBefore` whose leases
 * were not taken yet (each process once: its next heartbeat, if it was only late,
 * clears the mark, and a later silence takes again). One transaction.
 */
export async function takeOverLeasesOfSilentProcesses(db: Db, staleBefore: number, now: number): Promise<TakenOver> {
  return db.transaction().execute(async (tx) => {
    const silent = await tx.updateTable('processes').set({ leases_released_at: now })
      .where('last_seen_at', '<', staleBefore).where('leases_released_at', 'is', null)
      .returning(['id', 'pid', 'host', 'last_seen_at']).execute();
    if (silent.length === 0) return { processes: [], outbox: 0, webhooks: 0, simulatedReports: 0, campaigns: 0, imports: 0, inboundMedia: 0 };
    const owners = silent.map((p) => p.id);
    const outbox = await tx.updateTable('outbox').set({ lease_expires_at: now, available_at: now })
      .where('lease_owner', 'in', owners).where('lease_expires_at', '>', now).executeTakeFirst();
    const webhooks = await tx.updateTable('webhook_deliveries').set({ lease_expires_at: now })
      .where('lease_owner', 'in', owners).where('lease_expires_at', '>', now).executeTakeFirst();
    const reports = await tx.updateTable('simulated_reports').set({ lease_expires_at: now })
      .where('lease_owner', 'in', owners).where('lease_expires_at', '>', now).executeTakeFirst();
    const campaigns = await tx.updateTable('campaigns').set({ lease_expires_at: now })
      .where('lease_owner', 'in', owners).where('lease_expires_at', '>', now).executeTakeFirst();
    const imports = await tx.updateTable('contact_imports').set({ lease_expires_at: now })
      .where('status', '=', 'running').where('lease_owner', 'in', owners).where('lease_expires_at', '>', now).executeTakeFirst();
    const media = await tx.updateTable('inbound_attachments').set({ lease_expires_at: now })
      .where('state', '=', 'pending').where('lease_owner', 'in', owners).where('lease_expires_at', '>', now).executeTakeFirst();
    return {
      processes: silent.map((p) => ({ id: p.id, pid: Number(p.pid), host: p.host, lastSeenAt: Number(p.last_seen_at) })),
      outbox: Number(outbox.numUpdatedRows),
      webhooks: Number(webhooks.numUpdatedRows),
      simulatedReports: Number(reports.numUpdatedRows),
      campaigns: Number(campaigns.numUpdatedRows),
      imports: Number(imports.numUpdatedRows),
      inboundMedia: Number(media.numUpdatedRows),
    };
  });
}
