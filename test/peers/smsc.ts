import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import smpp from 'smpp';
import type { PDU, PduFields, Server, Session } from 'smpp';

// An SMSC stand-in on loopback: `smpp.createServer()` that binds one system_id and
// password, records every submit_sm with the octets of its short_message as they came
// over the wire, answers with message_ids (smsc-1, smsc-2, …), and lets a test
// refuse, hold or drop, and send delivery receipts and mobile-originated messages.

export interface SmscSubmit {
  readonly messageId: string;
  readonly sourceAddr: string;
  readonly sourceAddrTon: number;
  readonly sourceAddrNpi: number;
  readonly destinationAddr: string;
  readonly destAddrTon: number;
  readonly destAddrNpi: number;
  readonly esmClass: number;
  readonly registeredDelivery: number;
  readonly dataCoding: number;
  /** The short_message octets as sent, UDH included. */
  readonly shortMessage: Buffer;
  /** The user data header (its length octet first) when esm_class has UDHI (0x40). */
  readonly udh: Buffer | null;
  /** The octets after the UDH: one septet each for data_coding 0. */
  readonly septets: Buffer;
}

export interface Smsc {
  readonly port: number;
  /** `smpp://<systemId>:<password>@127.0.0.1:<port>` plus the query given. */
  url(query?: string): string;
  readonly submits: SmscSubmit[];
  /** system_ids of the binds accepted, in order. */
  readonly binds: string[];
  readonly enquireLinks: number;
  readonly unbinds: number;
  /** The most submit_sm that were waiting for their resp at one time. */
  readonly maxOutstanding: number;
  /** 'bind', 'submit', 'enquire_link', 'unbind'. */
  readonly events: EventEmitter;
  /** The next `count` submits (after the first `after`) are answered with this command_status (ESME_RTHROTTLED, …). */
  rejectNext(count: number, commandStatus: number, options?: { after?: number }): void;
  /** From now on, submits wait for release() before they are answered. */
  hold(): void;
  /** Answers the held submits and stops holding. */
  release(): void;
  /** The next `count` submits are never answered. */
  ignoreNext(count: number): void;
  /** A delivery receipt deliver_sm for `messageId` over the latest bound session; resolves with the deliver_sm_resp. */
  sendReceipt(messageId: string, stat: string, options?: { err?: string; receiptedMessageId?: string }): Promise<PDU>;
  /**
   * A mobile-originated deliver_sm or data_sm over the latest bound session, its fields as
   * given (a Buffer short_message or message_payload goes as is); resolves with the resp.
   */
  sendMo(command: 'deliver_sm' | 'data_sm', fields: PduFields): Promise<PDU>;
  /** Destroys every connection (the server keeps listening). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** The short_message octets of a raw submit_sm, read field by field (the library would decode them as text). */
function rawShortMessage(raw: Buffer): Buffer {
  let offset = 16;
  const skipCString = (): void => {
    while (raw[offset] !== 0) offset += 1;
    offset += 1;
  };
  skipCString(); // service_type
  offset += 2; // source_addr_ton, source_addr_npi
  skipCString(); // source_addr
  offset += 2; // dest_addr_ton, dest_addr_npi
  skipCString(); // destination_addr
  offset += 3; // esm_class, protocol_id, priority_flag
  skipCString(); // schedule_delivery_time
  skipCString(); // validity_period
  offset += 4; // registered_delivery, replace_if_present_flag, data_coding, sm_default_msg_id
  const length = raw.readUInt8(offset);
  return raw.subarray(offset + 1, offset + 1 + length);
}

/** Keeps the last complete PDU read from the session's socket, before the library parses it. */
function recordRawPdus(session: Session): () => Buffer | undefined {
  const socket = session.socket;
  const read = socket.read.bind(socket);
  let head: Buffer | undefined;
  let last: Buffer | undefined;
  // The library reads a PDU as read(4) for command_length, then read(length - 4) (≥ 12).
  socket.read = (size?: number): Buffer | null => {
    const chunk = read(size) as Buffer | null;
    if (chunk !== null && size !== undefined) {
      if (head === undefined && size === 4) head = chunk;
      else if (head !== undefined) {
        last = Buffer.concat([head, chunk]);
        head = undefined;
      }
    }
    return chunk;
  };
  return () => last;
}

export async function startSmsc(credentials: { systemId: string; password: string } = { systemId: 'herald', password: 'secret' }): Promise<Smsc> {
  const events = new EventEmitter();
  const submits: SmscSubmit[] = [];
  const binds: string[] = [];
  const bound: Session[] = [];
  let enquireLinks = 0;
  let unbinds = 0;
  let nextId = 1;
  let outstanding = 0;
  let maxOutstanding = 0;
  let rejections = { after: 0, count: 0, commandStatus: 0 };
  let ignored = 0;
  let holding = false;
  const held: (() => void)[] = [];

  const server: Server = smpp.createServer((session) => {
    const lastRaw = recordRawPdus(session);
    session.on('error', () => session.destroy());
    session.on('close', () => {
      const index = bound.indexOf(session);
      if (index !== -1) bound.splice(index, 1);
    });
    session.on('bind_transceiver', (pdu) => {
      if (pdu.system_id !== credentials.systemId || pdu.password !== credentials.password) {
        session.send(pdu.response({ command_status: smpp.ESME_RBINDFAIL }));
        session.close();
        return;
      }
      session.send(pdu.response({ system_id: 'smsc' }));
      bound.push(session);
      binds.push(pdu.system_id);
      events.emit('bind');
    });
    session.on('enquire_link', (pdu) => {
      enquireLinks += 1;
      session.send(pdu.response());
      events.emit('enquire_link');
    });
    session.on('unbind', (pdu) => {
      unbinds += 1;
      session.send(pdu.response());
      session.close();
      events.emit('unbind');
    });
    session.on('submit_sm', (pdu) => {
      const shortMessage = Buffer.from(rawShortMessage(lastRaw() ?? Buffer.alloc(0)));
      const esmClass = pdu.esm_class ?? 0;
      const udhLength = (esmClass & 0x40) !== 0 && shortMessage.length > 0 ? (shortMessage[0] ?? 0) + 1 : 0;
      const messageId = `smsc-${nextId++}`;
      submits.push({
        messageId,
        sourceAddr: pdu.source_addr ?? '',
        sourceAddrTon: pdu.source_addr_ton ?? 0,
        sourceAddrNpi: pdu.source_addr_npi ?? 0,
        destinationAddr: pdu.destination_addr ?? '',
        destAddrTon: pdu.dest_addr_ton ?? 0,
        destAddrNpi: pdu.dest_addr_npi ?? 0,
        esmClass,
        registeredDelivery: pdu.registered_delivery ?? 0,
        dataCoding: pdu.data_coding ?? 0,
        shortMessage,
        udh: udhLength === 0 ? null : shortMessage.subarray(0, udhLength),
        septets: shortMessage.subarray(udhLength),
      });
      outstanding += 1;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      events.emit('submit');
      if (ignored > 0) {
        ignored -= 1;
        return;
      }
      // The answer is decided as the submit arrives, even when it is held.
      let commandStatus = 0;
      if (rejections.after > 0) rejections = { ...rejections, after: rejections.after - 1 };
      else if (rejections.count > 0) {
        commandStatus = rejections.commandStatus;
        rejections = { ...rejections, count: rejections.count - 1 };
      }
      const answer = (): void => {
        outstanding -= 1;
        session.send(commandStatus === 0 ? pdu.response({ message_id: messageId }) : pdu.response({ command_status: commandStatus }));
      };
      if (holding) held.push(answer);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url: (query = '') => `smpp://${encodeURIComponent(credentials.systemId)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}${query}`,
    submits,
    binds,
    get enquireLinks() {
      return enquireLinks;
    },
    get unbinds() {
      return unbinds;
    },
    get maxOutstanding() {
      return maxOutstanding;
    },
    events,
    rejectNext(count, commandStatus, options = {}) {
      rejections = { after: options.after ?? 0, count, commandStatus };
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    ignoreNext(count) {
      ignored = count;
    },
    sendReceipt(messageId, stat, options = {}) {
      const session = bound.at(-1);
      if (session === undefined) return Promise.reject(new Error('no bound session to send a receipt over'));
      const err = options.err ?? (stat === 'DELIVRD' ? '000' : '001');
      const text = `id:${messageId} sub:001 dlvr:${stat === 'DELIVRD' ? '001' : '000'} submit date:2501011200 done date:2501011201 stat:${stat} err:${err} text:Hello`;
      return new Promise((resolve) => {
        session.deliver_sm(
          {
            source_addr_ton: 1, source_addr_npi: 1, source_addr: '4915112345678',
            esm_class: 0x04, data_coding: 0, short_message: Buffer.from(text, 'ascii'),
            ...(options.receiptedMessageId === undefined ? {} : { receipted_message_id: options.receiptedMessageId }),
          },
          resolve,
        );
      });
    },
    sendMo(command, fields) {
      const session = bound.at(-1);
      if (session === undefined) return Promise.reject(new Error(`no bound session to send a ${command} over`));
      return new Promise((resolve) => {
        const send = command === 'data_sm' ? session.data_sm.bind(session) : session.deliver_sm.bind(session);
        send({ source_addr_ton: 1, source_addr_npi: 1, dest_addr_ton: 1, dest_addr_npi: 1, esm_class: 0, data_coding: 0, ...fields }, resolve);
      });
    },
    dropConnections() {
      for (const session of [...server.sessions]) session.destroy();
    },
    async close() {
      for (const session of [...server.sessions]) session.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
