import type { Figure } from './common.ts';

// CPU per message of herald and of its peers as figures of their own (issue 26), each
// with the other side's beside it: CPU time drifts much less than a rate on the shared
// machine. herald's figure carries the target where one is stated — herald's process
// against every process of the peer — and only on SQLite, where herald's process does
// all of its work: on PostgreSQL the server's CPU is not counted (other runs share it).

export const CPU_UNIT = 'ms/message';

export interface CpuOf {
  readonly cpuMsPerMessage: number;
  /** Which processes were counted, in words. */
  readonly cpuOf: string;
}

const ms = (value: number): number => Number(value.toFixed(3));

/** `<name>.cpu-ms-per-message` of a peer, with herald's on each store beside it. */
export function peerCpuFigure(name: string, peer: CpuOf, herald: Readonly<Record<string, number>>, conditions: Record<string, unknown> = {}): Figure {
  return {
    name: `${name}.cpu-ms-per-message`, value: peer.cpuMsPerMessage, unit: CPU_UNIT,
    conditions: { ...conditions, cpuOf: peer.cpuOf, heraldCpuMsPerMessage: Object.fromEntries(Object.entries(herald).map(([kind, value]) => [kind, ms(value)])) },
  };
}

export interface CpuTarget {
  /** The peer herald must not use more CPU than, in words ("Postfix at its best", …). */
  readonly peer: string;
  readonly cpuMsPerMessage: number;
}

/** herald's `<name>.cpu-ms-per-message` on one store, with its peers' beside it and, on SQLite, the target. */
export function heraldCpuFigure(name: string, kind: string, herald: CpuOf, peers: Readonly<Record<string, number>>, target: CpuTarget | undefined, conditions: Record<string, unknown> = {}): Figure {
  const targeted = target !== undefined && kind === 'sqlite';
  return {
    name: `${name}.cpu-ms-per-message`, value: herald.cpuMsPerMessage, unit: CPU_UNIT,
    conditions: {
      ...conditions, database: kind, cpuOf: kind === 'sqlite' ? herald.cpuOf : `${herald.cpuOf}; not the PostgreSQL server's`,
      peersCpuMsPerMessage: Object.fromEntries(Object.entries(peers).map(([peer, value]) => [peer, ms(value)])),
      ...(targeted ? { target: `≤ ${ms(target.cpuMsPerMessage)} (${target.peer}, all its processes)`, met: herald.cpuMsPerMessage <= target.cpuMsPerMessage } : {}),
    },
  };
}

/** One line of notes: herald's CPU per message against a peer's. */
export function cpuNote(what: string, herald: number, peer: string, peerMs: number, target: boolean): string {
  const verdict = target ? ` — target ≤ ${peer}'s: ${herald <= peerMs ? 'MET' : 'NOT MET'}` : '';
  return `CPU per message, ${what}: herald ${herald.toFixed(2)} ms, ${peer} ${peerMs.toFixed(2)} ms (all its processes) = ${(herald / peerMs).toFixed(2)}×${verdict}`;
}
