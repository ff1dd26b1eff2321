// What a process runs. One machine runs everything (`all`); a deployment that
// outgrows it runs API processes behind a load balancer and worker processes
// beside them, all on one PostgreSQL (and one Redis for the shared rate limits).

import type { Role } from './domain/process-role.ts';

export interface RoleParts {
  /** The HTTP API (the v1 interface, admin API, tracking and inbound webhooks). */
  readonly api: boolean;
  /** The inbound SMTP listener for bounces and complaints: background work, like delivery (the API stays HTTP only). */
  readonly inboundSmtp: boolean;
  /** The outbox worker and the transports it drives (SMTP pools, SMPP sessions, Cloud API). */
  readonly delivery: boolean;
  /** The webhook dispatcher. */
  readonly webhooks: boolean;
  /** The contact import runner: reads uploaded imports in the background (database work only). */
  readonly imports: boolean;
}

const PARTS: Readonly<Record<Role, RoleParts>> = {
  all: { api: true, inboundSmtp: true, delivery: true, webhooks: true, imports: true },
  api: { api: true, inboundSmtp: false, delivery: false, webhooks: false, imports: false },
  // A worker answers only /healthz and /readyz on its HTTP port, for orchestrators.
  worker: { api: false, inboundSmtp: true, delivery: true, webhooks: true, imports: true },
};

export function partsOf(role: Role): RoleParts {
  return PARTS[role];
}

/** Whether the role runs loops or background jobs (anything but the bare API): such a process holds a SQLite store's serving lock. */
export function runsLoops(parts: RoleParts): boolean {
  return parts.delivery || parts.webhooks || parts.imports;
}
