import { Agent, request } from 'node:http';
import { WebhookSigner } from '../../src/webhooks/signature.ts';
import { serveParent } from './child.ts';

// The webhook baseline: the same signed POSTs, straight from memory. Each post is
// signed when it is sent, with the same `standardwebhooks` signer as herald's
// dispatcher, over node:http with the same keep-alive pool (BENCH_SOCKETS sockets to
// the receiver) and the same number in flight (`send`'s inFlight) — but no store, no
// claim, no log.

export interface RawPrepare {
  readonly url: string;
  readonly secret: string;
  readonly from: number;
  readonly count: number;
}

const SOCKETS_PER_ORIGIN = Number(process.env.BENCH_SOCKETS ?? 32);
const agent = new Agent({ keepAlive: true, maxSockets: SOCKETS_PER_ORIGIN, scheduling: 'lifo' });
const signer = new WebhookSigner();
let prepared: { url: URL; secret: string; posts: { id: string; body: string }[] } | undefined;

/** A body of the shape and size herald posts for an sms.delivered event. */
function body(i: number): string {
  const msgid = `01a20000-0000-7000-8000-${String(i).padStart(12, '0')}`;
  return JSON.stringify({
    type: 'sms.delivered',
    timestamp: new Date().toISOString(),
    data: {
      peer: 'smsc', response: 'stat:DELIVRD err:000', msgid, account: '01a20000-0000-7000-8000-000000000000', channel: 'sms',
      recipient: `+52155${String(10_000_000 + i).padStart(8, '0')}`, family: 'transactional',
    },
  });
}

function post(url: URL, secret: string, id: string, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { ...signer.headers(id, new Date(), payload, [secret]), 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

serveParent(
  {},
  {
    async prepare(args) {
      const { url, secret, from, count } = args as RawPrepare;
      prepared = { url: new URL(url), secret, posts: Array.from({ length: count }, (_, k) => ({ id: `evt-${from + k}`, body: body(from + k) })) };
    },
    async send(args) {
      const { inFlight } = args as { inFlight: number };
      const work = prepared;
      prepared = undefined;
      if (work === undefined) throw new Error('nothing prepared');
      let next = 0;
      let failed = 0;
      const lane = async (): Promise<void> => {
        while (next < work.posts.length) {
          const item = work.posts[next++];
          if (item === undefined) break;
          const status = await post(work.url, work.secret, item.id, item.body);
          if (status < 200 || status > 299) failed += 1;
        }
      };
      await Promise.all(Array.from({ length: inFlight }, lane));
      return { failed };
    },
  },
  async () => {
    agent.destroy();
  },
);
