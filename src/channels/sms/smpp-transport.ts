import type { Logger } from 'pino';
import type { PduFields } from 'smpp';
import { parseDeliveryReceipt, type ReceiptStatus } from '../../domain/delivery-receipt.ts';
import { MAX_PARTS, splitSeptets, toSmsParts, type SmsPart } from '../../domain/gsm7-packing.ts';
import type { Outbound, SmsPayload } from '../../domain/outbound.ts';
import type { Outcome, Transport } from '../channel.ts';
import { decodeMo, type MoMessage } from './mo-message.ts';
import { DEFAULT_SMPP_TIMING, SmppSession, describeStatus, statusName, type DeliverAnswer, type InboundDeliver, type SmppEndpoint, type SmppTiming, type SubmitPacer } from './smpp-session.ts';
import { sourceAddressOf, type SourceAddress } from './source-address.ts';
import type { SharedThroughputCapOptions } from './throughput-cap.ts';

// SMS over SMPP v3.4: `smpp://system_id:password@host:2775?window=10&throughput=100&from=Herald`
// (`smpps://` for TLS, default port 3550); `from` is the source address of a message whose
// account has no SMS senders (source-address.ts). Each message goes as GSM 03.38, data_coding 0,
// unpacked (domain/gsm7-packing.ts), one submit_sm per part with registered_delivery 1.
//
// providerRef is the FIRST part's message_id. Receipts come per part: the ids of a
// multipart message's parts are kept in memory (the most recent 10 000), and one report
// is made per message: failed at the first failed part, delivered when every part is.
// After a restart that memory is gone: the first part's receipt alone then decides, and
// the receipts of the other parts name ids nobody knows (answered, not recorded).
//
// What people send back comes over the same session: a deliver_sm of message type 0000,
// or a data_sm, is decoded (mo-message.ts) and handed to onInbound (docs/inbound-sms.md).

/** What a submit_sm_resp's command_status means; any status not named here fails the message, which left the house. */
export const SUBMIT_STATUS_OUTCOME = {
  ESME_ROK: 'accepted',
  ESME_RTHROTTLED: 'deferred',
  ESME_RMSGQFUL: 'deferred',
} as const;

export interface SmppReceiptReport {
  readonly providerRef: string;
  readonly status: ReceiptStatus;
  /** `stat:DELIVRD err:000`, the receipt's own words. */
  readonly response: string;
  readonly at?: number;
}

export interface SmppTransportOptions {
  /** HERALD_SMS_TRANSPORT. May hold credentials: never logged nor echoed. */
  readonly url: string;
  /** A rejection is answered ESME_RX_T_APPN, so the SMSC sends the receipt again later. */
  readonly onReceipt: (report: SmppReceiptReport) => Promise<void>;
  /**
   * A mobile-originated message (or one part of it): the deliver_sm or data_sm is answered
   * ESME_ROK once this resolves, ESME_RTHROTTLED when it resolves `throttled` (its sender is
   * past the inbound bound), ESME_RX_T_APPN (resend later) when it rejects. Absent: MO
   * messages are answered and dropped, as before inbound SMS existed.
   */
  readonly onInbound?: ((sms: MoMessage) => Promise<DeliverAnswer | undefined>) | undefined;
  readonly logger?: Logger;
  /** Monotonic milliseconds for the throughput pacer only; leave out (performance.now) unless it advances in real time. */
  readonly clock?: () => number;
  /** Time-outs and intervals (tests shorten them). */
  readonly timing?: Partial<SmppTiming>;
  /** HERALD_REDIS_*: the throughput cap is then held by every worker bound to this SMSC account together. */
  readonly sharedCap?: { readonly url: string; readonly failure: 'closed' | 'local'; readonly keyPrefix: string } | undefined;
}

export interface SmppSettings {
  readonly endpoint: SmppEndpoint;
  readonly window: number;
  readonly throughput: number;
  readonly source: SourceAddress;
}

const ALPHANUMERIC_SENDER = /^[A-Za-z0-9 ]{1,11}$/;
const NUMERIC_SENDER = /^\+?[0-9]{1,15}$/;

/** The URL's parts; throws an Error naming the bad part, never the URL. */
export function parseSmppUrl(raw: string): SmppSettings {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('HERALD_SMS_TRANSPORT: not a URL');
  }
  const tls = url.protocol === 'smpps:';
  if (!tls && url.protocol !== 'smpp:') throw new Error('HERALD_SMS_TRANSPORT: expected smpp:// or smpps://');
  if (url.hostname === '') throw new Error('HERALD_SMS_TRANSPORT: no host');
  const number = (name: string, fallback: number, valid: (n: number) => boolean): number => {
    const value = url.searchParams.get(name);
    if (value === null) return fallback;
    const n = Number(value);
    if (value.trim() === '' || !valid(n)) throw new Error(`HERALD_SMS_TRANSPORT: ${name} must be ${name === 'window' ? 'a whole number from 1 to 1000' : 'a number of submits per second, 0 for no cap'}`);
    return n;
  };
  const from = url.searchParams.get('from') ?? 'herald';
  let source: SmppSettings['source'];
  if (NUMERIC_SENDER.test(from)) source = { addr: from.replace(/^\+/, ''), ton: 1, npi: 1 };
  else if (ALPHANUMERIC_SENDER.test(from)) source = { addr: from, ton: 5, npi: 0 };
  else throw new Error('HERALD_SMS_TRANSPORT: from must be up to 11 letters and digits, or an international number');
  return {
    endpoint: {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? (tls ? 3550 : 2775) : Number(url.port),
      tls,
      systemId: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    },
    window: number('window', 10, (n) => Number.isInteger(n) && n >= 1 && n <= 1000),
    throughput: number('throughput', 100, (n) => Number.isFinite(n) && n >= 0),
    source,
  };
}

type SubmitVerdict = (typeof SUBMIT_STATUS_OUTCOME)[keyof typeof SUBMIT_STATUS_OUTCOME] | 'failed';

function verdictOf(commandStatus: number): SubmitVerdict {
  const name = statusName(commandStatus);
  return name !== undefined && Object.hasOwn(SUBMIT_STATUS_OUTCOME, name) ? SUBMIT_STATUS_OUTCOME[name as keyof typeof SUBMIT_STATUS_OUTCOME] : 'failed';
}

/**
 * The parts of recent multipart messages, by part id. A part is known from its
 * submit_sm_resp on, so a receipt that overtakes the next part's resp still counts.
 */
class MultipartReceipts {
  static readonly LIMIT = 10_000;
  readonly #byPart = new Map<string, { readonly firstId: string; readonly total: number; readonly delivered: Set<string>; settled: boolean }>();

  /** Registers the parts' ids as their resps come, the first part's first. */
  track(total: number): (partId: string) => void {
    let entry: { readonly firstId: string; readonly total: number; readonly delivered: Set<string>; settled: boolean } | undefined;
    return (partId) => {
      if (total < 2) return;
      entry ??= { firstId: partId, total, delivered: new Set(), settled: false };
      this.#byPart.set(partId, entry);
      for (const oldest of this.#byPart.keys()) {
        if (this.#byPart.size <= MultipartReceipts.LIMIT) break;
        this.#byPart.delete(oldest);
      }
    };
  }

  /** The message's report to make now, or null while parts are outstanding or once made. */
  resolve(partId: string, status: ReceiptStatus): { providerRef: string; status: ReceiptStatus } | null {
    const entry = this.#byPart.get(partId);
    if (entry === undefined) return { providerRef: partId, status };
    if (entry.settled) return null;
    if (status === 'delivered') {
      entry.delivered.add(partId);
      if (entry.delivered.size < entry.total) return null;
    }
    entry.settled = true;
    return { providerRef: entry.firstId, status };
  }
}

/** esm_class bits 5–2: 0001 is an SMSC delivery receipt. */
const RECEIPT_MESSAGE_TYPE = 0x04;
/** esm_class bits 5–2: 0000 is a message a person sent (mobile-originated). */
const MO_MESSAGE_TYPE = 0x00;
const MESSAGE_TYPE_MASK = 0x3c;
const UDH_INDICATOR = 0x40;

/** sharedThroughputCap once its module is loaded; the Redis connection opens as soon as it is. */
function lazySharedCap(options: SharedThroughputCapOptions): SubmitPacer & { close(): Promise<void> } {
  // Loaded lazily: throughput-cap.ts brings ioredis (~20 MB resident), needed only with HERALD_REDIS_URL.
  const cap = import('./throughput-cap.ts').then(({ sharedThroughputCap }) => sharedThroughputCap(options));
  return { reserve: async () => (await cap).reserve(), close: async () => (await cap).close() };
}

export function smppTransport(options: SmppTransportOptions): Transport<SmsPayload> & { close(): Promise<void> } {
  const settings = parseSmppUrl(options.url);
  const { logger } = options;
  const peer = `${settings.endpoint.host}:${settings.endpoint.port}`;
  const multipart = new MultipartReceipts();
  // The 8-bit concatenation reference; a random start makes a clash with a message
  // still being reassembled from before a restart unlikely.
  let reference = Math.floor(Math.random() * 256);

  async function onDeliver(deliver: InboundDeliver): Promise<DeliverAnswer | undefined> {
    const messageType = deliver.esmClass & MESSAGE_TYPE_MASK;
    if (messageType !== RECEIPT_MESSAGE_TYPE) {
      // Acknowledgements and intermediate notifications (the other message types) are no one's words.
      if (messageType !== MO_MESSAGE_TYPE || options.onInbound === undefined) {
        logger?.debug({ smsc: peer, esmClass: deliver.esmClass }, `${deliver.command} that is not a delivery receipt ignored`);
        return undefined;
      }
      return options.onInbound(decodeMo(deliver.pdu));
    }
    const receipt = parseDeliveryReceipt(deliver.text);
    if (receipt === null) {
      logger?.warn({ smsc: peer, text: deliver.text }, 'delivery receipt not understood');
      return undefined;
    }
    if (receipt.status === null) return undefined;
    // The TLV carries the id exactly as submit_sm_resp gave it; the text's id is
    // sometimes rendered in decimal by SMSCs that answered in hex.
    const resolved = multipart.resolve(deliver.receiptedMessageId ?? receipt.providerRef, receipt.status);
    if (resolved === null) return undefined;
    const response = receipt.err === null ? `stat:${receipt.stat}` : `stat:${receipt.stat} err:${receipt.err}`;
    await options.onReceipt({ providerRef: resolved.providerRef, status: resolved.status, response });
  }

  const { sharedCap } = options;
  const pacer = sharedCap === undefined || settings.throughput === 0 ? undefined : lazySharedCap({
    url: sharedCap.url,
    failure: sharedCap.failure,
    key: `${sharedCap.keyPrefix}smpp:${peer}:${settings.endpoint.systemId}`,
    perSecond: settings.throughput,
    logger,
    now: options.clock,
  });
  const session = new SmppSession({
    endpoint: settings.endpoint,
    window: settings.window,
    throughput: settings.throughput,
    timing: { ...DEFAULT_SMPP_TIMING, ...options.timing },
    onDeliver,
    logger,
    now: options.clock,
    pacer,
  });
  session.start();

  function submitFields(source: SourceAddress, recipient: string, part: SmsPart): PduFields {
    const septets = Buffer.from(part.septets);
    return {
      source_addr_ton: source.ton,
      source_addr_npi: source.npi,
      source_addr: source.addr,
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: recipient.replace(/^\+/, ''),
      esm_class: part.udh === null ? 0 : UDH_INDICATOR,
      registered_delivery: 1,
      data_coding: 0,
      short_message: part.udh === null ? septets : Buffer.concat([part.udh, septets]),
    };
  }

  return {
    name: 'smpp',
    async send(message: Outbound<SmsPayload>, signal: AbortSignal): Promise<Outcome> {
      const { from } = message.payload;
      const source = from === undefined ? settings.source : sourceAddressOf(from);
      if (source === null) return { kind: 'failed', peer, response: `sender ${JSON.stringify(from)} is not an SMS sender`, leftTheHouse: false };
      let chunks: Uint8Array[];
      try {
        chunks = splitSeptets(message.payload.text);
      } catch (error) {
        return { kind: 'failed', peer, response: error instanceof Error ? error.message : String(error), leftTheHouse: false };
      }
      if (chunks.length > MAX_PARTS) {
        return { kind: 'failed', peer, response: `message too long: ${chunks.length} parts, at most ${MAX_PARTS}`, leftTheHouse: false };
      }
      const unbound = await session.waitUntilBound(signal);
      if (unbound !== null) return { kind: 'deferred', peer, response: `SMSC not reachable: ${unbound}` };

      const parts = toSmsParts(chunks, reference);
      reference = (reference + 1) % 256;
      const ids: string[] = [];
      const track = multipart.track(parts.length);
      for (const [index, part] of parts.entries()) {
        const which = parts.length > 1 ? `part ${index + 1} of ${parts.length}: ` : '';
        const result = await session.submit(submitFields(source, message.recipient, part), signal);
        if (result.kind !== 'response') return { kind: 'deferred', peer, response: which + result.reason };
        const verdict = verdictOf(result.commandStatus);
        if (verdict === 'deferred') return { kind: 'deferred', peer, response: which + describeStatus(result.commandStatus) };
        if (verdict === 'failed') return { kind: 'failed', peer, response: which + describeStatus(result.commandStatus), leftTheHouse: true };
        ids.push(result.messageId);
        track(result.messageId);
      }
      const first = ids[0] ?? '';
      return {
        kind: 'accepted',
        peer,
        response: `${describeStatus(0)} message_id${ids.length > 1 ? 's' : ''} ${ids.join(', ')}`,
        ...(first === '' ? {} : { providerRef: first }),
      };
    },
    async close() {
      await session.close();
      await pacer?.close();
    },
  };
}
