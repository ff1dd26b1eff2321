import type { Figure } from './common.ts';

// Issue 26: a benchmark is only as honest as its peers. Each peer figure of a run is
// compared with a plain reference run of the same peer in the same run (Postfix fed by
// its own smtp-source, Kannel by a plain keep-alive autocannon load); a figure more than
// 20 % below its reference says the benchmark under-drives its peer, and fails the run.

/** The peer's figure must reach this share of its reference run's. */
export const PEER_CHECK_SHARE = 0.8;

export interface PeerRun {
  /** What ran, in words ("Postfix fed by the nodemailer pool", …). */
  readonly what: string;
  readonly rate: number;
  readonly cpuMsPerMessage: number;
}

export interface PeerCheck {
  /** `<name>.vs-reference`, with conditions.target and .met: the suite's table shows it. */
  readonly figure: Figure;
  readonly note: string;
  /** The line that says why the run fails, when it does. */
  readonly failure?: string;
}

export function peerCheck(name: string, unit: string, peer: PeerRun, reference: PeerRun & { readonly conditions: Record<string, unknown> }): PeerCheck {
  const ratio = peer.rate / reference.rate;
  const met = ratio >= PEER_CHECK_SHARE;
  const figure: Figure = {
    name: `${name}.vs-reference`, value: ratio, unit: 'peer/its reference run',
    conditions: {
      peer: peer.what, peerRate: Number(peer.rate.toFixed(1)), peerCpuMsPerMessage: Number(peer.cpuMsPerMessage.toFixed(3)),
      reference: reference.what, referenceRate: Number(reference.rate.toFixed(1)), referenceCpuMsPerMessage: Number(reference.cpuMsPerMessage.toFixed(3)),
      ...reference.conditions, target: `≥ ${PEER_CHECK_SHARE}`, met,
    },
  };
  const rates = `${peer.what}: ${peer.rate.toFixed(0)} ${unit} against ${reference.rate.toFixed(0)} ${unit} for ${reference.what}`;
  const note = `peer check ${name}: ${rates} = ${ratio.toFixed(2)}× (≥ ${PEER_CHECK_SHARE}×): ${met ? 'passed' : 'FAILED'}`;
  if (met) return { figure, note };
  return {
    figure, note,
    failure: `PEER CHECK FAILED (${name}): ${rates}, ${(100 * (1 - ratio)).toFixed(0)} % below it (allowed: ${(100 * (1 - PEER_CHECK_SHARE)).toFixed(0)} %): the benchmark under-drives its peer, and its figures against that peer do not hold`,
  };
}
