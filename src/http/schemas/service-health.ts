// The service's health as the operator console shows it (GET /admin/v1/health), snake_case.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.ts';

export const ProcessView = Type.Object({
  role: Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('worker')]),
  pid: Type.Integer(),
  host: Type.String(),
  started_at: Timestamp(),
  last_seen_at: Timestamp('Its last heartbeat; a process beats every 5 s, so older than ~15 s means it stopped'),
});
export type ProcessView = Static<typeof ProcessView>;

export const QueueView = Type.Object({
  channel: Type.Union([Type.Literal('email'), Type.Literal('sms'), Type.Literal('whatsapp')]),
  queued: Type.Integer({ minimum: 0, description: 'Messages waiting for a delivery attempt or its retry' }),
  oldest_age_seconds: Nullable(Type.Integer({ minimum: 0, description: 'Age of the oldest of them; null when none' })),
});
export type QueueView = Static<typeof QueueView>;

export const HealthView = Type.Object({
  processes: Type.Array(ProcessView, { description: 'Processes seen in the last hour' }),
  queues: Type.Array(QueueView, { description: 'One per channel' }),
  webhook_backlog: Type.Integer({ minimum: 0, description: 'Webhook deliveries still pending' }),
  failures_last_hour: Type.Integer({ minimum: 0, description: 'Messages that failed or bounced in the last hour' }),
  delivery_held: Type.Union([
    Type.Object({
      since: Type.String({ format: 'date-time' }),
      reason: Type.String({ description: '`started with --paused`, `restored from a backup`, or the operator\'s words' }),
      release: Type.String({ description: 'The command that releases it, after review' }),
    }),
    Type.Null(),
  ], { description: 'Set while delivery is held (docs/operations.md "Backup and restore"): messages are accepted and queued, none delivered, no webhook posted' }),
});
export type HealthView = Static<typeof HealthView>;
