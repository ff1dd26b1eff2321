import { setTimeout as sleep } from 'node:timers/promises';
import smpp from 'smpp';
import type { PDU, PduFields, Session, ShortMessage } from 'smpp';
import type { Logger } from 'pino';
import type { MoPdu } from './mo-message.ts';
import { smppOctets } from './smpp-octets.ts';

// One bound SMPP v3.4 transceiver to one SMSC, kept up in the background.
//
// States: idle → connecting → binding → bound; any loss (socket closed or failed,
// bind refused, an unanswered bind or enquire_link) → backoff → connecting, after
// 1 s, 2 s, 4 s … 30 s (reset once a bind succeeds); close() → closed, for good.
//
// Submits share a window of outstanding submit_sm (a slot is held until the resp
// comes, the time-out passes or the connection is lost) and a pacer that spaces them
// evenly at the configured rate. A submit whose resp never came may have been taken
// by the SMSC: the caller retries it, so delivery is at-least-once.

export interface SmppEndpoint {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly systemId: string;
  readonly password: string;
}

export interface SmppTiming {
  /** How long a send waits for a bind in progress before it is deferred. */
  readonly bindWaitMs: number;
  /** For bind_transceiver_resp, submit_sm_resp, enquire_link_resp and unbind_resp. */
  readonly responseTimeoutMs: number;
  /** An enquire_link goes out after this long without a PDU from the SMSC. */
  readonly enquireLinkMs: number;
  readonly reconnectMinMs: number;
  readonly reconnectMaxMs: number;
}

export const DEFAULT_SMPP_TIMING: SmppTiming = {
  bindWaitMs: 5000, responseTimeoutMs: 10_000, enquireLinkMs: 30_000, reconnectMinMs: 1000, reconnectMaxMs: 30_000,
};

export type SmppSessionState = 'idle' | 'connecting' | 'binding' | 'bound' | 'backoff' | 'closed';

/** A deliver_sm or data_sm from the SMSC: a delivery receipt or a mobile-originated message. */
export interface InboundDeliver {
  readonly command: 'deliver_sm' | 'data_sm';
  readonly esmClass: number;
  /** short_message (or message_payload) as text; receipts are ASCII. */
  readonly text: string;
  /** TLV 0x001E, when the SMSC sends it. */
  readonly receiptedMessageId?: string;
  /** The addresses and the user data's octets as they came, for a mobile-originated message (mo-message.ts). */
  readonly pdu: MoPdu;
}

/** What a deliver_sm or data_sm is answered when it was not simply taken: `throttled`, the sender must slow down (ESME_RTHROTTLED). */
export type DeliverAnswer = 'throttled';

export type SubmitResult =
  | { readonly kind: 'response'; readonly commandStatus: number; readonly messageId: string }
  /** Never written to the SMSC: safe to send again. */
  | { readonly kind: 'not-sent'; readonly reason: string }
  /** Written, but no resp: the SMSC may or may not have it. */
  | { readonly kind: 'no-response'; readonly reason: string };

const STATUS_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

/** `ESME_RINVDSTADR (0x0000000B)`: a command_status as operators read it in SMSC logs. */
export function describeStatus(code: number): string {
  const hex = `0x${code.toString(16).toUpperCase().padStart(8, '0')}`;
  const name = STATUS_NAMES.get(code);
  return name === undefined ? `command_status ${hex}` : `${name} (${hex})`;
}

/** The command_status name (ESME_ROK, ESME_RTHROTTLED, …), undefined for codes the library does not name. */
export function statusName(code: number): string | undefined {
  return STATUS_NAMES.get(code);
}

/**
 * Where a submit's turn comes from: the milliseconds to wait for it. A ThroughputPacer
 * in this process, or one shared by every worker through Redis (throughput-cap.ts),
 * which rejects when no turn can be had (the submit is then not sent).
 */
export interface SubmitPacer {
  reserve(): number | Promise<number>;
}

/**
 * Spaces submits evenly at `perSecond`: a token bucket one token deep, so a burst
 * never exceeds the rate over any sub-second window an SMSC may count in.
 */
export class ThroughputPacer implements SubmitPacer {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #nextAt = Number.NEGATIVE_INFINITY;

  constructor(perSecond: number, now: () => number) {
    this.#intervalMs = perSecond > 0 ? 1000 / perSecond : 0;
    this.#now = now;
  }

  /** Takes the next slot; returns how many milliseconds to wait for it. */
  reserve(): number {
    const now = this.#now();
    const at = Math.max(now, this.#nextAt);
    this.#nextAt = at + this.#intervalMs;
    return at - now;
  }
}

/** Counts outstanding submits; waiters are served in order. */
class SubmitWindow {
  #free: number;
  readonly #waiters: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const granted = (): void => {
        signal.removeEventListener('abort', aborted);
        resolve(true);
      };
      const aborted = (): void => {
        const index = this.#waiters.indexOf(granted);
        if (index !== -1) this.#waiters.splice(index, 1);
        resolve(false);
      };
      this.#waiters.push(granted);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free += 1;
  }
}

/** One TCP (or TLS) connection and what hangs on it. */
interface Link {
  readonly session: Session;
  /** Fails every submit waiting for its resp on this connection. */
  readonly pending: Set<(reason: string) => void>;
  readonly timers: Set<NodeJS.Timeout>;
  error: string | undefined;
  heard: boolean;
  enquiring: boolean;
}

export interface SmppSessionOptions {
  readonly endpoint: SmppEndpoint;
  readonly window: number;
  /** Submits per second; 0 for no cap. */
  readonly throughput: number;
  readonly timing: SmppTiming;
  /** Answered with deliver_sm_resp (data_sm_resp) ESME_ROK when it resolves, ESME_RTHROTTLED when it resolves `throttled`, ESME_RX_T_APPN (resend later) when it throws. */
  readonly onDeliver: (deliver: InboundDeliver) => Promise<DeliverAnswer | undefined>;
  readonly logger?: Logger | undefined;
  /** Monotonic milliseconds for the pacer. */
  readonly now?: (() => number) | undefined;
  /** Replaces this process's pacer at `throughput`, e.g. with one shared by every worker. */
  readonly pacer?: SubmitPacer | undefined;
}

export class SmppSession {
  readonly #options: SmppSessionOptions;
  readonly #window: SubmitWindow;
  readonly #pacer: SubmitPacer;
  #state: SmppSessionState = 'idle';
  #link: Link | undefined;
  #failures = 0;
  #lastError = 'not connected yet';
  #retryTimer: NodeJS.Timeout | undefined;
  readonly #bindWaiters = new Set<(reason: string | null) => void>();

  constructor(options: SmppSessionOptions) {
    this.#options = options;
    this.#window = new SubmitWindow(options.window);
    this.#pacer = options.pacer ?? new ThroughputPacer(options.throughput, options.now ?? (() => performance.now()));
  }

  get state(): SmppSessionState {
    return this.#state;
  }

  /** Connects and binds in the background; idempotent. */
  start(): void {
    if (this.#state === 'idle') this.#connect();
  }

  /**
   * Null once bound; otherwise why not. A bind in progress is waited for (at most
   * bindWaitMs); an SMSC known to be down (backing off) answers at once.
   */
  waitUntilBound(signal: AbortSignal): Promise<string | null> {
    this.start();
    if (this.#state === 'bound') return Promise.resolve(null);
    if (this.#state === 'closed') return Promise.resolve('transport closed');
    if (this.#state === 'backoff') return Promise.resolve(this.#lastError);
    if (signal.aborted) return Promise.resolve('aborted');
    const { bindWaitMs } = this.#options.timing;
    return new Promise((resolve) => {
      const done = (reason: string | null): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
        this.#bindWaiters.delete(done);
        resolve(reason);
      };
      const aborted = (): void => done('aborted');
      const timer = setTimeout(() => done(`not bound within ${bindWaitMs} ms`), bindWaitMs);
      signal.addEventListener('abort', aborted, { once: true });
      this.#bindWaiters.add(done);
    });
  }

  /** One submit_sm, within the window and the rate. Never throws. */
  async submit(fields: PduFields, signal: AbortSignal): Promise<SubmitResult> {
    if (!(await this.#window.acquire(signal))) return { kind: 'not-sent', reason: 'aborted' };
    try {
      let wait: number;
      try {
        wait = await this.#pacer.reserve();
      } catch (error) {
        return { kind: 'not-sent', reason: error instanceof Error ? error.message : String(error) };
      }
      if (wait > 0) {
        try {
          await sleep(wait, undefined, { signal });
        } catch {
          return { kind: 'not-sent', reason: 'aborted' };
        }
      }
      const link = this.#link;
      if (link === undefined || this.#state !== 'bound') return { kind: 'not-sent', reason: `SMSC not reachable: ${this.#state === 'closed' ? 'transport closed' : this.#lastError}` };
      return await this.#request(link, fields);
    } finally {
      this.#window.release();
    }
  }

  /** Unbinds (waiting at most responseTimeoutMs for unbind_resp), closes, and stops reconnecting. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasBound = this.#state === 'bound';
    this.#state = 'closed';
    clearTimeout(this.#retryTimer);
    this.#settleBindWaiters('transport closed');
    const link = this.#link;
    if (link === undefined || link.session.socket.destroyed) return;
    const closed = new Promise<void>((resolve) => link.session.once('close', resolve));
    if (!wasBound) {
      link.session.destroy();
      await closed;
      return;
    }
    // unbind_resp, the connection ending first, or the time-out.
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(finish, this.#options.timing.responseTimeoutMs);
      void closed.then(finish);
      if (!link.session.unbind(finish)) finish();
    });
    link.session.close();
    // A peer that never closes its side is not waited for longer than a resp.
    const forced = setTimeout(() => link.session.destroy(), this.#options.timing.responseTimeoutMs);
    await closed;
    clearTimeout(forced);
  }

  #connect(): void {
    const { host, port, tls } = this.#options.endpoint;
    this.#state = 'connecting';
    const session = smpp.connect(tls ? { host, port, tls, servername: host } : { host, port });
    const link: Link = { session, pending: new Set(), timers: new Set(), error: undefined, heard: false, enquiring: false };
    this.#link = link;
    session.on(tls ? 'secureConnect' : 'connect', () => this.#bind(link));
    // 'close' follows a socket error; a PDU parse error leaves the socket open but
    // stuck, so both end the connection here.
    session.on('error', (error) => {
      link.error ??= error.message;
      session.destroy();
    });
    session.on('close', () => this.#lost(link));
    session.on('pdu', () => {
      link.heard = true;
    });
    session.on('enquire_link', (pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu) => {
      link.error ??= 'SMSC unbound';
      session.send(pdu.response());
      session.close();
    });
    session.on('deliver_sm', (pdu) => this.#deliver(link, pdu));
    session.on('data_sm', (pdu) => this.#deliver(link, pdu));
  }

  #bind(link: Link): void {
    if (link !== this.#link || this.#state === 'closed') return;
    this.#state = 'binding';
    const { systemId, password } = this.#options.endpoint;
    const timer = this.#timer(link, this.#options.timing.responseTimeoutMs, () => {
      link.error ??= `no bind_transceiver_resp within ${this.#options.timing.responseTimeoutMs} ms`;
      link.session.destroy();
    });
    link.session.bind_transceiver({ system_id: systemId, password, system_type: '', interface_version: 0x34 }, (pdu) => {
      this.#clearTimer(link, timer);
      if (link !== this.#link || this.#state !== 'binding') return;
      if (pdu.command_status !== 0) {
        link.error ??= `bind refused: ${describeStatus(pdu.command_status)}`;
        link.session.destroy();
        return;
      }
      this.#state = 'bound';
      this.#failures = 0;
      this.#options.logger?.info({ smsc: this.#peer() }, 'SMPP transceiver bound');
      this.#keepAlive(link);
      this.#settleBindWaiters(null);
    });
  }

  /** An enquire_link after a quiet interval; no enquire_link_resp in time ends the connection. */
  #keepAlive(link: Link): void {
    const { enquireLinkMs, responseTimeoutMs } = this.#options.timing;
    const interval = setInterval(() => {
      if (link.heard) {
        link.heard = false;
        return;
      }
      if (link.enquiring) return;
      link.enquiring = true;
      const timer = this.#timer(link, responseTimeoutMs, () => {
        link.error ??= `no enquire_link_resp within ${responseTimeoutMs} ms`;
        link.session.destroy();
      });
      link.session.enquire_link(() => {
        this.#clearTimer(link, timer);
        link.enquiring = false;
      });
    }, enquireLinkMs);
    link.timers.add(interval);
  }

  #request(link: Link, fields: PduFields): Promise<SubmitResult> {
    const { responseTimeoutMs } = this.#options.timing;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: SubmitResult): void => {
        if (settled) return;
        settled = true;
        this.#clearTimer(link, timer);
        link.pending.delete(lost);
        resolve(result);
      };
      const lost = (reason: string): void => finish({ kind: 'no-response', reason: `SMSC connection lost before submit_sm_resp (${reason})` });
      const timer = this.#timer(link, responseTimeoutMs, () => finish({ kind: 'no-response', reason: `no submit_sm_resp within ${responseTimeoutMs} ms` }));
      link.pending.add(lost);
      const written = link.session.submit_sm(fields, (pdu) => finish({ kind: 'response', commandStatus: pdu.command_status, messageId: pdu.message_id ?? '' }));
      if (!written) finish({ kind: 'not-sent', reason: 'SMSC connection not writable' });
    });
  }

  #deliver(link: Link, pdu: PDU): void {
    // Read inside the promise: a PDU that cannot be read is answered like a failure to store it, never thrown into the socket's reader.
    Promise.resolve().then(() => this.#options.onDeliver({
      command: pdu.command === 'data_sm' ? 'data_sm' : 'deliver_sm',
      esmClass: pdu.esm_class ?? 0,
      text: deliverText(pdu),
      ...(pdu.receipted_message_id ? { receiptedMessageId: pdu.receipted_message_id } : {}),
      pdu: moPdu(pdu),
    })).then(
      (answer) => link.session.send(answer === 'throttled' ? pdu.response({ command_status: smpp.ESME_RTHROTTLED }) : pdu.response()),
      (error: unknown) => {
        this.#options.logger?.error({ err: error, smsc: this.#peer(), command: pdu.command }, `${pdu.command} not recorded; asking the SMSC to resend`);
        link.session.send(pdu.response({ command_status: smpp.ESME_RX_T_APPN }));
      },
    );
  }

  #lost(link: Link): void {
    if (link !== this.#link) return;
    this.#link = undefined;
    for (const timer of link.timers) clearTimeout(timer);
    link.timers.clear();
    const reason = link.error ?? 'connection closed';
    for (const fail of [...link.pending]) fail(reason);
    if (this.#state === 'closed') return;
    this.#lastError = reason;
    this.#settleBindWaiters(reason);
    const { reconnectMinMs, reconnectMaxMs } = this.#options.timing;
    const delayMs = Math.min(reconnectMaxMs, reconnectMinMs * 2 ** this.#failures);
    this.#failures += 1;
    this.#state = 'backoff';
    this.#options.logger?.warn({ smsc: this.#peer(), reason, retryInMs: delayMs }, 'SMPP connection lost');
    this.#retryTimer = setTimeout(() => {
      if (this.#state === 'backoff') this.#connect();
    }, delayMs);
  }

  #settleBindWaiters(reason: string | null): void {
    for (const waiter of [...this.#bindWaiters]) waiter(reason);
  }

  #timer(link: Link, ms: number, fire: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      link.timers.delete(timer);
      fire();
    }, ms);
    link.timers.add(timer);
    return timer;
  }

  #clearTimer(link: Link, timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    link.timers.delete(timer);
  }

  /** host:port, never the credentials. */
  #peer(): string {
    return `${this.#options.endpoint.host}:${this.#options.endpoint.port}`;
  }
}

/**
 * The deliver_sm's text. The library decodes data_coding 0 and 1 with its GSM
 * table, which turns ASCII '_' or '@' into other letters; receipts are ASCII, so
 * those are encoded back to the octets that came and read as Latin-1.
 */
function deliverText(pdu: PDU): string {
  const fromShort = messageText(pdu.short_message, pdu.data_coding);
  return fromShort !== '' ? fromShort : messageText(pdu.message_payload, pdu.data_coding);
}

/** The PDU's addresses and user data octets (the library's decoding undone: smpp-octets.ts). */
function moPdu(pdu: PDU): MoPdu {
  const dataCoding = pdu.data_coding ?? 0;
  const { sar_msg_ref_num: reference, sar_total_segments: total, sar_segment_seqnum: part } = pdu;
  return {
    sourceAddr: pdu.source_addr ?? '',
    sourceAddrTon: pdu.source_addr_ton ?? 0,
    destinationAddr: pdu.destination_addr ?? '',
    destAddrTon: pdu.dest_addr_ton ?? 0,
    esmClass: pdu.esm_class ?? 0,
    dataCoding,
    shortMessage: smppOctets(pdu.short_message, dataCoding),
    ...(pdu.message_payload === undefined ? {} : { messagePayload: smppOctets(pdu.message_payload, dataCoding) }),
    ...(reference === undefined || total === undefined || part === undefined ? {} : { sar: { reference, total, part } }),
  };
}

function messageText(value: ShortMessage | undefined, dataCoding: number | null | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  const message = value.message;
  if (typeof message !== 'string') return message.toString('latin1');
  return ((dataCoding ?? 0) & 0x0f) <= 1 ? smpp.encodings.ASCII.encode(message).toString('latin1') : message;
}
