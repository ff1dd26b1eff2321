import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import { once } from 'node:events';
import dnsPacket, { type Answer, type Packet, type Question } from 'dns-packet';

// A small authoritative DNS server on loopback (UDP and TCP on one port) for tests
// of MX look-ups and domain verification. Records are plain data the test edits.

export type Zone = Map<string, Answer[]>;

export interface DnsPeer {
  readonly port: number;
  /** `127.0.0.1:<port>`, ready for HERALD_DNS_SERVERS or Resolver#setServers. */
  readonly server: string;
  readonly zone: Zone;
  readonly queries: Question[];
  set(name: string, answers: readonly Answer[]): void;
  close(): Promise<void>;
}

const key = (name: string, type: string): string => `${name.toLowerCase()}|${type}`;

export async function startDnsServer(): Promise<DnsPeer> {
  const zone: Zone = new Map();
  const queries: Question[] = [];

  const answer = (query: Packet, maxBytes = Infinity): Buffer => {
    const answers: Answer[] = [];
    for (const question of query.questions ?? []) {
      queries.push(question);
      answers.push(...(zone.get(key(question.name, question.type)) ?? []));
    }
    const known = (query.questions ?? []).some((q) => [...zone.keys()].some((k) => k.startsWith(`${q.name.toLowerCase()}|`)));
    const flags = dnsPacket.AUTHORITATIVE_ANSWER | (known || answers.length > 0 ? 0 : 3) /* NXDOMAIN */;
    const full = dnsPacket.encode({ id: query.id, type: 'response', flags, questions: query.questions ?? [], answers });
    if (full.length <= maxBytes) return full;
    // Too long for this UDP answer: say so (TC) and let the client ask again over TCP.
    return dnsPacket.encode({ id: query.id, type: 'response', flags: flags | dnsPacket.TRUNCATED_RESPONSE, questions: query.questions ?? [], answers: [] });
  };

  // A client that sent EDNS (an OPT record) takes UDP answers up to the size it named.
  const udpLimit = (query: Packet): number => {
    const opt = (query.additionals ?? []).find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
    return opt?.udpPayloadSize ?? 512;
  };

  const onQuery = (udp: Socket) => (message: Buffer, remote: { port: number; address: string }) => {
    try {
      const query = dnsPacket.decode(message);
      udp.send(answer(query, udpLimit(query)), remote.port, remote.address);
    } catch { /* a garbled query gets no answer, as from a real server */ }
  };

  const sockets = new Set<TcpSocket>();
  const onConnection = (socket: TcpSocket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < 2 + length) break;
        const query = dnsPacket.decode(buffered.subarray(2, 2 + length));
        buffered = buffered.subarray(2 + length);
        const reply = answer(query);
        const framed = Buffer.alloc(2 + reply.length);
        framed.writeUInt16BE(reply.length, 0);
        reply.copy(framed, 2);
        socket.write(framed);
      }
    });
    socket.on('error', () => socket.destroy());
  };

  // UDP takes a free port first; TCP must then get the same number, which another
  // process may hold: start again on a fresh port when it does.
  const bind = async (): Promise<{ udp: Socket; tcp: Server; port: number }> => {
    for (let attempt = 0; ; attempt++) {
      const udp = createSocket('udp4');
      udp.on('message', onQuery(udp));
      udp.bind(0, '127.0.0.1');
      await once(udp, 'listening');
      const port = udp.address().port;
      const tcp = createServer(onConnection);
      try {
        await new Promise<void>((resolve, reject) => {
          tcp.once('error', reject);
          tcp.listen(port, '127.0.0.1', () => resolve());
        });
        return { udp, tcp, port };
      } catch (error) {
        udp.close();
        if (attempt >= 20) throw error;
      }
    }
  };
  const { udp, tcp, port } = await bind();

  return {
    port,
    server: `127.0.0.1:${port}`,
    zone,
    queries,
    set(name, answers) {
      const byType = new Map<string, Answer[]>();
      for (const a of answers) byType.set(a.type, [...(byType.get(a.type) ?? []), a]);
      for (const [type, list] of byType) zone.set(key(name, type), list);
    },
    async close() {
      udp.close();
      // A resolver may keep its TCP connection open; close() would wait for it forever.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
