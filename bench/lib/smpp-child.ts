import { once } from 'node:events';
import smpp from 'smpp';
import type { PduFields } from 'smpp';
import { splitSeptets } from '../../src/domain/gsm7-packing.ts';
import { serveParent } from './child.ts';
import { mobileNumber, smsText } from './sms-content.ts';

// The SMS baseline: one raw `smpp` client session, bound as a transceiver, submitting
// the same submit_sm herald sends (source "herald" alphanumeric, GSM 7-bit unpacked,
// registered_delivery 1) with at most `window` submits waiting for their resp. The
// PDUs' fields are built before the clock starts (`prepare`).

export interface SmppChildStart {
  readonly port: number;
  readonly systemId: string;
  readonly password: string;
}

export interface SmppPrepare {
  readonly from: number;
  readonly count: number;
}

const { port, systemId, password } = JSON.parse(process.env.BENCH_SMPP ?? '{}') as SmppChildStart;
const session = smpp.connect({ host: '127.0.0.1', port });
session.on('error', (error) => {
  process.stderr.write(`smpp baseline: ${error.message}\n`);
  process.exitCode = 1;
});
await once(session, 'connect');
const bound = await new Promise<number>((resolve) => {
  session.bind_transceiver({ system_id: systemId, password, system_type: '', interface_version: 0x34 }, (pdu) => resolve(pdu.command_status));
});
if (bound !== 0) throw new Error(`bind refused: ${bound}`);

let prepared: PduFields[] = [];

function fields(i: number): PduFields {
  return {
    source_addr_ton: 5, source_addr_npi: 0, source_addr: 'herald',
    dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: mobileNumber(i).slice(1),
    esm_class: 0, registered_delivery: 1, data_coding: 0,
    short_message: Buffer.from(splitSeptets(smsText(i))[0] ?? new Uint8Array(0)),
  };
}

serveParent(
  {},
  {
    async prepare(args) {
      const { from, count } = args as SmppPrepare;
      prepared = Array.from({ length: count }, (_, k) => fields(from + k));
    },
    async send(args) {
      const { window } = args as { window: number };
      const queue = prepared;
      prepared = [];
      let next = 0;
      let failed = 0;
      const lane = async (): Promise<void> => {
        while (next < queue.length) {
          const pdu = queue[next++];
          if (pdu === undefined) continue;
          const status = await new Promise<number>((resolve) => {
            if (!session.submit_sm(pdu, (resp) => resolve(resp.command_status))) resolve(-1);
          });
          if (status !== 0) failed += 1;
        }
      };
      await Promise.all(Array.from({ length: Math.min(window, queue.length) }, lane));
      if (failed > 0) throw new Error(`${failed} submits were not accepted`);
    },
  },
  async () => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      session.unbind(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    session.close();
  },
);
