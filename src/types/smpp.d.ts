// Types for the parts of `smpp` 0.5.x (node-smpp, CommonJS, no types of its own) that
// herald uses: sessions (client and server side), PDUs, status codes and constants.
// Written from node_modules/smpp/lib/{smpp,pdu,defs}.js; import the default export.

declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  /**
   * `short_message` / `message_payload` as the library takes them (a Buffer is sent
   * as is; `udh` must start with its length octet) and as it gives them back after
   * decoding (`udh` split into information elements, `message` decoded by data_coding).
   */
  export type ShortMessage = Buffer | string | { udh?: Buffer | Buffer[]; message: string | Buffer };

  /** Fields of the PDUs herald sends or reads; the library accepts any SMPP v5 field name. */
  export interface PduFields {
    command_status?: number;
    sequence_number?: number;
    system_id?: string;
    password?: string;
    system_type?: string;
    interface_version?: number;
    addr_ton?: number;
    addr_npi?: number;
    address_range?: string;
    service_type?: string;
    source_addr_ton?: number;
    source_addr_npi?: number;
    source_addr?: string;
    dest_addr_ton?: number;
    dest_addr_npi?: number;
    destination_addr?: string;
    esm_class?: number;
    protocol_id?: number;
    priority_flag?: number;
    registered_delivery?: number;
    replace_if_present_flag?: number;
    data_coding?: number | null;
    sm_default_msg_id?: number;
    short_message?: ShortMessage;
    message_payload?: ShortMessage;
    message_id?: string;
    /** TLV 0x001E: the id a delivery receipt is about. */
    receipted_message_id?: string;
    /** TLV 0x0427: MESSAGE_STATE of a delivery receipt. */
    message_state?: number;
    /** TLVs 0x020C, 0x020E, 0x020F: a concatenated message's reference, part count and part number. */
    sar_msg_ref_num?: number;
    sar_total_segments?: number;
    sar_segment_seqnum?: number;
  }

  // The class and this interface merge: a PDU carries every field above.
  export interface PDU extends PduFields {}
  export class PDU {
    /** Parses one complete PDU (command_length included). */
    constructor(buffer: Buffer);
    readonly command: string;
    command_length: number;
    command_id: number;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    /** The matching `*_resp` (or generic_nack for an unknown command), same sequence_number. */
    response(options?: PduFields): PDU;
    toBuffer(): Buffer;
    static maxLength: number;
  }

  export type ResponseCallback = (pdu: PDU) => void;

  export interface ConnectOptions {
    host?: string;
    port?: number;
    /** TLS (the library's `ssmpp://`); other options go to net.connect / tls.connect. */
    tls?: boolean;
    url?: string;
    auto_enquire_link_period?: number;
    servername?: string;
    rejectUnauthorized?: boolean;
  }

  /** One SMPP connection, either end. Connects at construction on the client side. */
  export class Session extends EventEmitter {
    readonly socket: Socket;
    /** Set on sessions a Server created. */
    server?: Server;
    /** False when the socket is not writable (nothing was sent). */
    send(pdu: PDU, responseCallback?: ResponseCallback, sendCallback?: ResponseCallback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;

    bind_transceiver(options: PduFields, responseCallback?: ResponseCallback): boolean;
    submit_sm(options: PduFields, responseCallback?: ResponseCallback): boolean;
    deliver_sm(options: PduFields, responseCallback?: ResponseCallback): boolean;
    data_sm(options: PduFields, responseCallback?: ResponseCallback): boolean;
    enquire_link(options?: PduFields | ResponseCallback, responseCallback?: ResponseCallback): boolean;
    unbind(options?: PduFields | ResponseCallback, responseCallback?: ResponseCallback): boolean;

    on(event: 'connect' | 'secureConnect' | 'close', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'pdu' | 'unknown' | 'send' | SmppCommand, listener: (pdu: PDU) => void): this;
    once(event: 'connect' | 'secureConnect' | 'close', listener: () => void): this;
    once(event: 'error', listener: (error: Error) => void): this;
    once(event: 'pdu' | 'unknown' | 'send' | SmppCommand, listener: (pdu: PDU) => void): this;
  }

  export type SmppCommand =
    | 'bind_transceiver' | 'bind_transceiver_resp' | 'bind_transmitter' | 'bind_receiver'
    | 'submit_sm' | 'submit_sm_resp' | 'deliver_sm' | 'deliver_sm_resp' | 'data_sm' | 'data_sm_resp'
    | 'enquire_link' | 'enquire_link_resp' | 'unbind' | 'unbind_resp' | 'generic_nack';

  export class Server extends NetServer {
    readonly sessions: Session[];
    on(event: 'session', listener: (session: Session) => void): this;
    on(event: string, listener: (...args: never[]) => void): this;
  }

  export interface Encoding {
    match(value: string): boolean;
    encode(value: string): Buffer;
    decode(value: Buffer): string;
  }

  export interface SmppModule {
    connect(options: ConnectOptions, listener?: () => void): Session;
    createServer(listener?: (session: Session) => void): Server;
    createServer(options: { key?: string | Buffer; cert?: string | Buffer }, listener?: (session: Session) => void): Server;
    readonly PDU: typeof PDU;
    readonly Session: typeof Session;
    /** command_status values by name (ESME_ROK, ESME_RTHROTTLED, …). */
    readonly errors: Readonly<Record<string, number>>;
    /** The text codecs used for string short_messages: ASCII (GSM 03.38), LATIN1, UCS2. */
    readonly encodings: { readonly ASCII: Encoding; readonly LATIN1: Encoding; readonly UCS2: Encoding; default: string };
    readonly consts: {
      readonly ESM_CLASS: Readonly<Record<string, number>>;
      readonly MESSAGE_STATE: Readonly<Record<string, number>>;
      readonly ENCODING: Readonly<Record<string, number>>;
      readonly TON: Readonly<Record<string, number>>;
      readonly NPI: Readonly<Record<string, number>>;
      readonly REGISTERED_DELIVERY: Readonly<Record<string, number>>;
    };
    readonly ESME_ROK: number;
    readonly ESME_RINVDSTADR: number;
    readonly ESME_RBINDFAIL: number;
    readonly ESME_RMSGQFUL: number;
    readonly ESME_RTHROTTLED: number;
    readonly ESME_RSYSERR: number;
    readonly ESME_RX_T_APPN: number;
  }

  const smpp: SmppModule;
  export default smpp;
}
