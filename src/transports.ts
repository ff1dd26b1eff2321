import { Resolver } from 'node:dns/promises';
import type { Logger } from 'pino';
import type { KeyDeps } from './app/api-keys.ts';
import { dkimKeyLookup } from './app/dkim-keys.ts';
import { recordPeerStatus } from './app/record-peer-status.ts';
import { whatsappCredentials } from './app/whatsapp-credentials.ts';
import type { CaptureSink } from './channels/channel.ts';
import { attachmentResolver } from './channels/email/attachments.ts';
import { emailCaptureTransport } from './channels/email/capture-transport.ts';
import type { ComposeSettings } from './channels/email/compose.ts';
import { mxTransport } from './channels/email/mx-transport.ts';
import { smtpRelayTransport } from './channels/email/smtp-transport.ts';
import { smsCaptureTransport } from './channels/sms/capture-transport.ts';
import { smppTransport } from './channels/sms/smpp-transport.ts';
import { cloudApiTransport } from './channels/whatsapp/cloud-api-transport.ts';
import { whatsappCaptureTransport } from './channels/whatsapp/capture-transport.ts';
import type { Config } from './config.ts';
import { trackingTokens } from './domain/tracking-token.ts';
import type { Transports } from './outbox/worker.ts';
import { putCapture } from './store/messages.ts';

// The one place where configuration picks the transport of each channel.

const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
const ATTACHMENT_TIMEOUT_MS = 30_000;

export interface BuiltTransports {
  readonly transports: Transports;
  close(): Promise<void>;
}

export function buildTransports(config: Config, deps: KeyDeps, logger: Logger): BuiltTransports {
  const sink: CaptureSink = { put: (capture) => putCapture(deps.db, { ...capture, at: deps.clock() }) };
  const compose: ComposeSettings & { dkim: ReturnType<typeof dkimKeyLookup> } = {
    messageIdHost: new URL(config.publicUrl).hostname,
    bounceDomain: deps.bounceDomain,
    publicUrl: config.publicUrl,
    tokens: trackingTokens(deps.signingSecret),
    dkim: dkimKeyLookup(deps.db),
    clock: deps.clock,
  };
  const resolveAttachments = attachmentResolver({ allowPrivate: config.fetchAllowPrivate, maxBytes: ATTACHMENT_MAX_BYTES, timeoutMs: ATTACHMENT_TIMEOUT_MS });
  const closers: (() => Promise<void>)[] = [];

  let email: Transports['email'];
  if (config.emailTransport === 'capture') {
    email = emailCaptureTransport({ ...compose, sink, resolveAttachments });
  } else if (config.emailTransport === 'mx') {
    const resolver = new Resolver({ timeout: 5000, tries: 2 });
    if (config.dnsServers.length > 0) resolver.setServers([...config.dnsServers]);
    const mx = mxTransport({ ...compose, resolver, heloName: config.heloName ?? deps.bounceDomain, resolveAttachments });
    closers.push(() => mx.close());
    email = mx;
  } else {
    const relay = smtpRelayTransport({ ...compose, url: config.emailTransport, resolveAttachments, ...(config.heloName ? { heloName: config.heloName } : {}) });
    closers.push(() => relay.close());
    email = relay;
  }

  let sms: Transports['sms'];
  if (config.smsTransport === 'capture') {
    sms = smsCaptureTransport({ sink });
  } else {
    const smpp = smppTransport({
      url: config.smsTransport,
      logger,
      sharedCap: config.redisUrl === undefined ? undefined : { url: config.redisUrl, failure: config.redisFailure, keyPrefix: config.redisPrefix },
      onReceipt: async (receipt) => {
        const result = await recordPeerStatus(deps, { channel: 'sms', peer: 'smpp', ...receipt });
        // A receipt can overtake the commit of the submit's own outcome (the row has no
        // provider_ref yet): refusing it makes the SMSC deliver it again a little later.
        if (result === 'unknown-message') throw new Error(`receipt for unknown message ${receipt.providerRef}`);
      },
    });
    closers.push(() => smpp.close());
    sms = smpp;
  }

  const whatsapp: Transports['whatsapp'] =
    config.whatsappTransport === 'capture'
      ? whatsappCaptureTransport({ sink })
      : cloudApiTransport({ baseUrl: config.whatsappTransport, credentials: whatsappCredentials(deps) });

  return {
    transports: { email, sms, whatsapp },
    async close() {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}
