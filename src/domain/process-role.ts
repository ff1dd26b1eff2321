// The names of what a process runs, known to the wire of config and to the heartbeat rows;
// which parts each role starts is wiring, in roles.ts.

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
